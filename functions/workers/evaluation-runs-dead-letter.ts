import { type EvaluationsDeps, evaluationsDeps } from '#evaluations/evaluations-deps.js';
import { EVALUATION_TASK_MESSAGE } from '#evaluations/queue-messages.js';
import { failDeadLetteredEvaluation } from '#evaluations/start-runs.js';
import { queueWorker } from '#platform/queue-worker.js';

/** Fails a `run: true` evaluation whose task failed on every delivery (`internal_error`) and cancels its runs, so it is never left running for ever. */
export const makeHandler = (deps: EvaluationsDeps = evaluationsDeps()) =>
  queueWorker(EVALUATION_TASK_MESSAGE, (task) => failDeadLetteredEvaluation(deps, task));

export const handler = makeHandler();
