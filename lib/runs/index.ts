/**
 * What other features may use of runs: wake a run by id (an answered
 * interaction resumes it); and, for features that run harnesses themselves
 * (evaluations), a run of an account by id, the creation of a run under an
 * id they derive, and its cancel, with the run's model. Nothing here loads
 * zod: handlers that validate no body import this.
 */
import { defaultTable, type TableRef } from '#platform/table/table.js';
import { createRun } from './create-run.js';
import { cancelRun } from './end-run.js';
import type { Run } from './model.js';
import { createRunDeps } from './runs-deps.js';
import { runsRepo } from './runs-repository.js';
import type { CreateRunInput } from './schemas.js';
import { wakeRun } from './wake.js';

export { HarnessNotRunnableError } from './errors.js';
export { isTerminal, RUN_INPUT_MAX_BYTES, RUN_STATUSES, type Run, type RunStatus, runView } from './model.js';
export type { RunEnded } from './run-ended.js';

/** A run's `input`: a string, or an object; at most RUN_INPUT_MAX_BYTES of JSON. */
export type RunInput = CreateRunInput['input'];

export const runWaker =
  (table?: TableRef) =>
  async (runId: string): Promise<void> => {
    const run = await runsRepo(table).get(runId);
    if (run) await wakeRun(run);
  };

export interface RunsService {
  /** The run if it is the account's; undefined for a malformed, unknown or other account's id alike. */
  getOwned(accountId: string, runId: string): Promise<Run | undefined>;
  /**
   * POST /v2/runs's creation under the id `id` (a `run_` id the caller
   * derived): asked again with the same id, it answers the run made the
   * first time. Throws what POST /v2/runs answers (422 naming the field,
   * `harness_not_runnable`, 503 to retry). With `concurrency`, the run
   * holds one of the account's slots of work in progress as POST /v2/runs's
   * does (429 `rate_limited` past it); without, it holds none.
   */
  create(
    accountId: string,
    body: { harness_id: string; machine_id: string; input: RunInput; metadata: Record<string, unknown> },
    id: string,
    options?: { concurrency?: number },
  ): Promise<Run>;
  /** POST /v2/runs/{id}/cancel: an ended run comes back unchanged. */
  cancel(run: Run): Promise<Run>;
}

export function runsService(table: TableRef = defaultTable()): RunsService {
  const deps = createRunDeps(table);
  return {
    getOwned: (accountId, runId) => deps.runs.getOwned(accountId, runId),
    create: (accountId, body, id, options = {}) =>
      createRun(deps, accountId, { ...body, if_busy: 'enqueue' }, undefined, {
        id,
        ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
      }),
    cancel: (run) => cancelRun(deps, run),
  };
}
