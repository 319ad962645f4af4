import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { observeInvocation } from './observability/invocation.js';
import { withLogScope } from './observability/logger.js';

/**
 * The handler of an SQS worker: each record of the batch is processed on
 * its own (Powertools batch, at the same time as the others); a record that
 * throws is reported in `batchItemFailures` and comes back after the
 * visibility timeout, the others are deleted. Each record's log lines carry
 * its message id as `request_id`; the metrics the batch counted are
 * published when it ends.
 */
export function queueWorker(processRecord: (record: SQSRecord, context: Context) => Promise<unknown>) {
  const processor = new BatchProcessor(EventType.SQS);
  return (event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
    observeInvocation(context, () => {
      const record = (r: SQSRecord) => withLogScope({ request_id: r.messageId }, () => processRecord(r, context));
      return processPartialResponse(event, record, processor, { context, throwOnFullBatchFailure: false });
    });
}
