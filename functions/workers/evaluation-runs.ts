import { type EvaluationsDeps, evaluationsDeps } from '#evaluations/evaluations-deps.js';
import { moveEvaluation } from '#evaluations/start-runs.js';
import type { EvaluationTask } from '#evaluations/tasks.js';
import { queueWorker } from '#platform/queue-worker.js';

/**
 * Worker of the evaluation-runs queue: starts the runs of a `run: true`
 * evaluation, or cancels them once it is cancelled or failed
 * (lib/evaluations/start-runs.ts). A record that throws comes back after the
 * visibility timeout; after five receives the dead-letter worker fails it.
 */
export const makeHandler = (deps: EvaluationsDeps = evaluationsDeps()) =>
  queueWorker((r, context) => moveEvaluation(deps, JSON.parse(r.body) as EvaluationTask, { remainingMs: () => context.getRemainingTimeInMillis() }));

export const handler = makeHandler();
