import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import type { EndDeps } from '#runs/cancel-run.js';
import { failDeadLetteredRun } from '#runs/dead-letter.js';
import { endRunDeps } from '#runs/runs-deps.js';
import type { RunTask } from '#runs/wake.js';

/** Fails a run whose task failed on every delivery (`internal_error`), so that it never holds its machine for ever. */
export const makeHandler = (deps: EndDeps = endRunDeps()) => {
  const processor = new BatchProcessor(EventType.SQS);
  return async (event: SQSEvent, context: Context) => {
    const record = async (r: SQSRecord) => failDeadLetteredRun(deps, JSON.parse(r.body) as RunTask);
    return processPartialResponse(event, record, processor, { context, throwOnFullBatchFailure: false });
  };
};

export const handler = makeHandler();
