import { queueWorker } from '#platform/queue-worker.js';
import { failDeadLetteredRun } from '#runs/dead-letter.js';
import type { EndDeps } from '#runs/end-run.js';
import { RUN_TASK_MESSAGE } from '#runs/queue-messages.js';
import { endRunDeps } from '#runs/runs-deps.js';

/** Fails a run whose task failed on every delivery (`internal_error`), so that it never holds its machine for ever. */
export const makeHandler = (deps: EndDeps = endRunDeps()) => queueWorker(RUN_TASK_MESSAGE, (task) => failDeadLetteredRun(deps, task));

export const handler = makeHandler();
