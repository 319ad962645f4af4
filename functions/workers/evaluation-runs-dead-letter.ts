import { type EvaluationsDeps, evaluationsDeps } from '#evaluations/evaluations-deps.js';
import { failDeadLetteredEvaluation } from '#evaluations/start-runs.js';
import type { EvaluationTask } from '#evaluations/tasks.js';
import { queueWorker } from '#platform/queue-worker.js';

/** Fails a `run: true` evaluation whose task failed on every delivery (`internal_error`) and cancels its runs, so it is never left running for ever. */
export const makeHandler = (deps: EvaluationsDeps = evaluationsDeps()) =>
  queueWorker((r) => failDeadLetteredEvaluation(deps, JSON.parse(r.body) as EvaluationTask));

export const handler = makeHandler();
