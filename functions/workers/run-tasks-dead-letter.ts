import { queueWorker } from '#platform/queue-worker.js';
import type { EndDeps } from '#runs/cancel-run.js';
import { failDeadLetteredRun } from '#runs/dead-letter.js';
import { endRunDeps } from '#runs/runs-deps.js';
import type { RunTask } from '#runs/wake.js';

/** Fails a run whose task failed on every delivery (`internal_error`), so that it never holds its machine for ever. */
export const makeHandler = (deps: EndDeps = endRunDeps()) => queueWorker((r) => failDeadLetteredRun(deps, JSON.parse(r.body) as RunTask));

export const handler = makeHandler();
