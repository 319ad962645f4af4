import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { type EvaluationsDeps, evaluationsDeps } from '#evaluations/evaluations-deps.js';
import { recordRunEnded } from '#evaluations/outcomes.js';
import type { RunEnded } from '#runs/index.js';

/**
 * Worker of the run-ended queue (lib/runs/queues.ts): what follows the end
 * of a run in the features that follow runs. Composed here, so the runs
 * feature imports none of them: an evaluation records the outcome of the
 * attempt the run fills and completes when it was its last run. Every step
 * is idempotent, so a notice delivered twice changes nothing.
 */
export const makeHandler = (deps: EvaluationsDeps = evaluationsDeps()) => {
  const processor = new BatchProcessor(EventType.SQS);
  return async (event: SQSEvent, context: Context) => {
    const record = async (r: SQSRecord) => recordRunEnded(deps, JSON.parse(r.body) as RunEnded);
    return processPartialResponse(event, record, processor, { context, throwOnFullBatchFailure: false });
  };
};

export const handler = makeHandler();
