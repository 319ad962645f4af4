import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { observeInvocation } from './observability/invocation.js';
import { withLogScope } from './observability/logger.js';

/**
 * The handler of an SQS worker: each record of the batch is processed on
 * its own (Powertools batch, at the same time as the others); a record that
 * throws is reported in `batchItemFailures` and comes back after the
 * visibility timeout, the others are deleted. Each record's log lines carry
 * its message id as `request_id` (and `account_id` when the message names
 * its account); the metrics the batch counted are
 * published when it ends.
 */
export function queueWorker(processRecord: (record: SQSRecord, context: Context) => Promise<unknown>) {
  const processor = new BatchProcessor(EventType.SQS);
  return (event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
    observeInvocation(context, () => {
      const record = (r: SQSRecord) => withLogScope({ request_id: r.messageId, ...accountOf(r.body) }, () => processRecord(r, context));
      return processPartialResponse(event, record, processor, { context, throwOnFullBatchFailure: false });
    });
}

/** The account a message is about, when its body names one (`account_id`), for its log lines; nothing for any other body. */
function accountOf(body: string): { account_id?: string } {
  try {
    const parsed: unknown = JSON.parse(body);
    const id = typeof parsed === 'object' && parsed !== null ? (parsed as { account_id?: unknown }).account_id : undefined;
    return typeof id === 'string' ? { account_id: id } : {};
  } catch {
    return {};
  }
}
