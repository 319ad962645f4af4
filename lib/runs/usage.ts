import { machineCostMicroUsd, tokenCostMicroUsd } from '#platform/config/prices.js';
import type { Run, RunUsage } from './model.js';

/**
 * A run's usage from its totals (tokens of every recorded model turn,
 * machine time so far), priced by the price table. Computed from totals each
 * time, never added up call by call, so a recorded turn counts once however
 * often a worker replays it and no rounding accumulates.
 */
export function usageOf(run: Pick<Run, 'harness' | 'machine_size'>, tokens: { input: number; output: number }, machineMs: number): RunUsage {
  return {
    input_tokens: tokens.input,
    output_tokens: tokens.output,
    cost_micro_usd: tokenCostMicroUsd(run.harness.model, tokens.input, tokens.output) + machineCostMicroUsd(run.machine_size, machineMs),
  };
}

/** Machine time used until `now`: what was banked plus the current stretch of `running`. */
export const machineMsAt = (run: Pick<Run, 'machine_ms' | 'running_since'>, now: Date): number =>
  run.machine_ms + (run.running_since ? Math.max(0, now.getTime() - Date.parse(run.running_since)) : 0);

/** The fields a run sets when it stops running (waiting, or ended): its machine time banked and its usage priced with it. */
export function leaveRunning(run: Run, now: Date): Pick<Run, 'machine_ms' | 'running_since' | 'usage'> {
  const machineMs = machineMsAt(run, now);
  return {
    machine_ms: machineMs,
    running_since: null,
    usage: usageOf(run, { input: run.usage.input_tokens, output: run.usage.output_tokens }, machineMs),
  };
}
