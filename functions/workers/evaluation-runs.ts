import { type EvaluationsDeps, evaluationsDeps } from '#evaluations/evaluations-deps.js';
import { EVALUATION_TASK_MESSAGE } from '#evaluations/queue-messages.js';
import { moveEvaluation } from '#evaluations/start-runs.js';
import { queueWorker } from '#platform/queue-worker.js';

/**
 * Worker of the evaluation-runs queue: starts the runs of a `run: true`
 * evaluation, or cancels them once it is cancelled or failed
 * (lib/evaluations/start-runs.ts). A record that throws comes back after the
 * visibility timeout; after five receives the dead-letter worker fails it.
 */
export const makeHandler = (deps: EvaluationsDeps = evaluationsDeps()) =>
  queueWorker(EVALUATION_TASK_MESSAGE, (task, _r, context) => moveEvaluation(deps, task, { remainingMs: () => context.getRemainingTimeInMillis() }));

export const handler = makeHandler();
