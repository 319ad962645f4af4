import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { type DispatchDeps, dispatchEvent } from '#webhooks/dispatch.js';
import type { WebhookNotice } from '#webhooks/index.js';
import { dispatchDeps } from '#webhooks/worker-deps.js';

/**
 * Worker of the webhook-events queue (lib/webhooks/queues.ts): an event of
 * the account's record becomes one delivery per subscribed endpoint of that
 * account, each created once however often its notice comes.
 */
export const makeHandler = (deps: DispatchDeps = dispatchDeps()) => {
  const processor = new BatchProcessor(EventType.SQS);
  return async (event: SQSEvent, context: Context) => {
    const record = async (r: SQSRecord) => dispatchEvent(deps, JSON.parse(r.body) as WebhookNotice, r.messageId);
    return processPartialResponse(event, record, processor, { context, throwOnFullBatchFailure: false });
  };
};

export const handler = makeHandler();
