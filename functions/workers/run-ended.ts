import { type EvaluationsDeps, evaluationsDeps } from '#evaluations/evaluations-deps.js';
import { recordRunEnded } from '#evaluations/outcomes.js';
import { queueWorker } from '#platform/queue-worker.js';
import { RUN_ENDED_MESSAGE } from '#runs/queue-messages.js';

/**
 * Worker of the run-ended queue (lib/runs/queues.ts): what follows the end
 * of a run in the features that follow runs. Composed here, so the runs
 * feature imports none of them: an evaluation records the outcome of the
 * attempt the run fills and completes when it was its last run. Every step
 * is idempotent, so a notice delivered twice changes nothing.
 */
export const makeHandler = (deps: EvaluationsDeps = evaluationsDeps()) => queueWorker(RUN_ENDED_MESSAGE, (notice) => recordRunEnded(deps, notice));

export const handler = makeHandler();
