import { afterEnd, type EndDeps, endRun } from './end-run.js';
import { isTerminal } from './model.js';
import type { RunTask } from './wake.js';

/**
 * A run task that failed on every delivery: the run fails with
 * `internal_error` (whatever status it had, so that it releases or leaves
 * its machine) and its machine moves on.
 */
export async function failDeadLetteredRun(deps: EndDeps, task: RunTask): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const run = await deps.runs.get(task.run_id);
    if (!run) return;
    if (isTerminal(run.status)) return afterEnd(deps, run, run.wait?.interaction_id);
    const failure = { code: 'internal_error' as const, message: 'The run could not be moved on after repeated attempts.', retryable: true };
    if (await endRun(deps, run, { status: 'failed', failure }, ['queued', 'running', 'waiting'])) return;
  }
  throw new Error(`Run ${task.run_id} kept changing while it was being failed.`);
}
