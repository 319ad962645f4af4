import { type EvaluationsDeps, evaluationsDeps } from '#evaluations/evaluations-deps.js';
import { recordRunEnded } from '#evaluations/outcomes.js';
import { queueWorker } from '#platform/queue-worker.js';
import type { RunEnded } from '#runs/index.js';

/**
 * Worker of the run-ended queue (lib/runs/queues.ts): what follows the end
 * of a run in the features that follow runs. Composed here, so the runs
 * feature imports none of them: an evaluation records the outcome of the
 * attempt the run fills and completes when it was its last run. Every step
 * is idempotent, so a notice delivered twice changes nothing.
 */
export const makeHandler = (deps: EvaluationsDeps = evaluationsDeps()) => queueWorker((r) => recordRunEnded(deps, JSON.parse(r.body) as RunEnded));

export const handler = makeHandler();
