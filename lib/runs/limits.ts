import { RUN_LIMIT_NAMES, type RunLimitName, type RunLimits } from '#harnesses/model.js';
import type { Run, RunFailure } from './model.js';
import { machineMsAt, usageOf } from './usage.js';

/**
 * A run's limits (decisions.md, "Run streaming, limits and forks"):
 * `max_cost_micro_usd`, `max_duration_seconds`, `max_tool_calls`, from
 * `POST /v2/runs` over the harness's defaults, kept on the run as `limits`.
 * The agent loop asks `limitReached` before each model turn and each tool
 * call; a limit reached fails the run with `budget_exceeded` there, through
 * the same end as any failed run (its usage banked and settled), so a run
 * overshoots by at most the one model turn or tool call that was under way
 * when it was reached. What each limit counts:
 *
 * - cost: the run's usage cost as it would be billed now, its recorded
 *   tokens and its machine time up to now (`usage.cost_micro_usd` is the
 *   same sum, with machine time banked when the run leaves `running`);
 * - duration: its active time, the time it spent `running`: `machine_ms`
 *   banked each time it leaves `running` (for a person, or at its end) plus
 *   the stretch since `running_since`. Both are written in the transactions
 *   that change its status, so the count survives any worker dying and any
 *   message delivered twice; time `queued` and time `waiting` for a person
 *   never count, so no limit can be reached while a run waits;
 * - tool calls: `tool_calls`, raised in the change that records each tool
 *   result (exactly once, with the result's step), `ask_user` included; a
 *   call a person denied was not made and does not count. Checked before a
 *   tool call only: a run may take the model turn after its last allowed
 *   call, and completes if that turn answers without one.
 */

/** The run's effective limits: the harness's defaults, each overridden by the run's own value; undefined when none is set. */
export function effectiveLimits(harness: RunLimits | undefined, own: RunLimits | undefined): RunLimits | undefined {
  const merged: RunLimits = {};
  for (const name of RUN_LIMIT_NAMES) {
    const value = own?.[name] ?? harness?.[name];
    if (value !== undefined) merged[name] = value;
  }
  return Object.keys(merged).length > 0 ? merged : undefined;
}

/** Milliseconds the run has spent `running` until `now` (queued and waiting time left out): its machine time. */
export const activeMsAt = (run: Pick<Run, 'machine_ms' | 'running_since'>, now: Date): number => machineMsAt(run, now);

/** The run's usage cost if it ended `now`: its recorded tokens and its machine time so far, priced. */
export const costAt = (run: Pick<Run, 'harness' | 'machine_size' | 'usage' | 'machine_ms' | 'running_since'>, now: Date): number =>
  usageOf(run, { input: run.usage.input_tokens, output: run.usage.output_tokens }, machineMsAt(run, now)).cost_micro_usd;

/** What the run is about to do: take a model turn, or make a tool call. */
export type NextStep = 'model_turn' | 'tool_call';

type LimitedRun = Pick<Run, 'limits' | 'tool_calls' | 'harness' | 'machine_size' | 'usage' | 'machine_ms' | 'running_since'>;

/** The limit the run has reached before `next`, if any (cost, then duration, then tool calls). */
export function reachedLimit(run: LimitedRun, next: NextStep, now: Date): RunLimitName | undefined {
  const limits = run.limits;
  if (!limits) return undefined;
  if (limits.max_cost_micro_usd !== undefined && costAt(run, now) >= limits.max_cost_micro_usd) return 'max_cost_micro_usd';
  if (limits.max_duration_seconds !== undefined && activeMsAt(run, now) >= limits.max_duration_seconds * 1000) return 'max_duration_seconds';
  if (next === 'tool_call' && limits.max_tool_calls !== undefined && (run.tool_calls ?? 0) >= limits.max_tool_calls) return 'max_tool_calls';
  return undefined;
}

const REACHED: Record<RunLimitName, (limit: number) => string> = {
  max_cost_micro_usd: (limit) => `The run reached its cost limit of ${limit} microdollars (limits.max_cost_micro_usd).`,
  max_duration_seconds: (limit) => `The run reached its limit of ${limit} seconds of running time (limits.max_duration_seconds).`,
  max_tool_calls: (limit) => `The run made its ${limit} tool call${limit === 1 ? '' : 's'} (limits.max_tool_calls) and asked for another.`,
};

/** The failure of a run that reached `limit`: `budget_exceeded`, not retryable (the same run would reach it again). */
export const budgetExceeded = (limit: RunLimitName, limits: RunLimits): RunFailure => ({
  code: 'budget_exceeded',
  message: REACHED[limit](limits[limit] ?? 0),
  retryable: false,
  limit,
});

/** The failure that ends the run before `next`, when one of its limits is reached. */
export function limitFailure(run: LimitedRun, next: NextStep, now: Date): RunFailure | undefined {
  const reached = reachedLimit(run, next, now);
  return reached === undefined ? undefined : budgetExceeded(reached, run.limits!);
}
