import type { MachineSize } from './sizes.js';

/**
 * A machine as stored. `current_run_id` (the run that holds it: running or
 * waiting for a person) and `queued_runs` (how many runs wait for it) are
 * the runs feature's to maintain; until runs exist every machine has none.
 */
export interface Machine {
  id: string;
  account_id: string;
  name: string;
  size: MachineSize;
  current_run_id: string | null;
  queued_runs: number;
  created_at: string;
}

/** `mch_`, 9 base-36 digits of creation time, 16 base64url characters (lib/platform/ids.ts). */
export const MACHINE_ID = /^mch_[0-9a-z]{9}[A-Za-z0-9_-]{16}$/;
