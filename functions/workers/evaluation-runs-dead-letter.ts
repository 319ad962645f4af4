import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { type EvaluationsDeps, evaluationsDeps } from '#evaluations/evaluations-deps.js';
import { failDeadLetteredEvaluation } from '#evaluations/start-runs.js';
import type { EvaluationTask } from '#evaluations/tasks.js';

/** Fails a `run: true` evaluation whose task failed on every delivery (`internal_error`) and cancels its runs, so it is never left running for ever. */
export const makeHandler = (deps: EvaluationsDeps = evaluationsDeps()) => {
  const processor = new BatchProcessor(EventType.SQS);
  return async (event: SQSEvent, context: Context) => {
    const record = async (r: SQSRecord) => failDeadLetteredEvaluation(deps, JSON.parse(r.body) as EvaluationTask);
    return processPartialResponse(event, record, processor, { context, throwOnFullBatchFailure: false });
  };
};

export const handler = makeHandler();
