import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { type EvaluationsDeps, evaluationsDeps } from '#evaluations/evaluations-deps.js';
import { moveEvaluation } from '#evaluations/start-runs.js';
import type { EvaluationTask } from '#evaluations/tasks.js';

/**
 * Worker of the evaluation-runs queue: starts the runs of a `run: true`
 * evaluation, or cancels them once it is cancelled or failed
 * (lib/evaluations/start-runs.ts). A record that throws comes back after the
 * visibility timeout; after five receives the dead-letter worker fails it.
 */
export const makeHandler = (deps: EvaluationsDeps = evaluationsDeps()) => {
  const processor = new BatchProcessor(EventType.SQS);
  return async (event: SQSEvent, context: Context) => {
    const record = async (r: SQSRecord) =>
      moveEvaluation(deps, JSON.parse(r.body) as EvaluationTask, { remainingMs: () => context.getRemainingTimeInMillis() });
    return processPartialResponse(event, record, processor, { context, throwOnFullBatchFailure: false });
  };
};

export const handler = makeHandler();
