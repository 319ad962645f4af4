import type { HarnessConfig } from './harness-config.js';

/** A harness as stored and read (its head item; the files' content is apart). No I/O. */

export interface HarnessFileEntry {
  path: string;
  bytes: number;
}

export interface Harness {
  id: string;
  account_id: string;
  name: string;
  model: string;
  config: HarnessConfig;
  /** In the order they were sent. */
  files: HarnessFileEntry[];
  total_bytes: number;
  /** The instructions file has nothing but whitespace (not runnable). */
  instructions_empty: boolean;
  created_at: string;
}

/** `h_` + 9 base-36 characters of time + 16 base64url characters (lib/platform/ids.ts). */
export const HARNESS_ID = /^h_[0-9a-z]{9}[A-Za-z0-9_-]{16}$/;

/** The limits of a run that harness.json may carry as defaults (./run-limit-names.ts), for the runs. */
export {
  limitsInOrder,
  RUN_LIMIT_DESCRIPTIONS,
  RUN_LIMIT_NAMES,
  RUN_LIMIT_RULE,
  type RunLimitName,
  type RunLimits,
} from './run-limit-names.js';
