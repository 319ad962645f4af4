import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { type DeliveryDeps, processDelivery } from '#webhooks/deliver.js';
import type { DeliveryMessage } from '#webhooks/delivery-messages.js';
import { deliveryDeps } from '#webhooks/worker-deps.js';

/**
 * Worker of the webhook-deliveries queue (lib/webhooks/queues.ts): one
 * signed POST per message, its outcome recorded before the message is
 * deleted (a failed record leaves it to come back: partial batch failures).
 */
export const makeHandler = (deps: DeliveryDeps = deliveryDeps()) => {
  const processor = new BatchProcessor(EventType.SQS);
  return async (event: SQSEvent, context: Context) => {
    const record = async (r: SQSRecord) => processDelivery(deps, JSON.parse(r.body) as DeliveryMessage);
    return processPartialResponse(event, record, processor, { context, throwOnFullBatchFailure: false });
  };
};

export const handler = makeHandler();
