import * as z from 'zod/v4-mini';
import type { MessageOf, QueueMessage } from '#platform/queue-worker.js';

/**
 * The messages of the webhooks' queues (lib/webhooks/queues.ts), as their
 * workers and dead-letter workers validate them. Kept apart from the
 * senders (index.ts and delivery-messages.ts import only their types), so
 * that a handler that sends one loads no zod at init.
 */

/** The message of the `webhook-events` queue: an event of the account's record to dispatch. */
export const WebhookNoticeSchema = z.looseObject({
  account_id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  created_at: z.string(),
});

export type WebhookNotice = MessageOf<typeof WebhookNoticeSchema>;

export const WEBHOOK_NOTICE_MESSAGE: QueueMessage<typeof WebhookNoticeSchema> = { kind: 'webhook notice', schema: WebhookNoticeSchema };

/** One attempt of a delivery, as the `webhook-deliveries` queue carries it. */
export const DeliveryMessageSchema = z.looseObject({
  delivery_id: z.string(),
  endpoint_id: z.string(),
  account_id: z.string(),
  /** The delivery's series this attempt belongs to; a retry (POST …/retry) starts another and makes this one stale. */
  series: z.number(),
  /** Which attempt, counted over every series: the delivery must have made `attempt - 1`. */
  attempt: z.number(),
  /** Epoch ms when the attempt is due: a message that arrives earlier is sent again with the rest of the wait. */
  due_at: z.number(),
});

export type DeliveryMessage = MessageOf<typeof DeliveryMessageSchema>;

export const DELIVERY_MESSAGE: QueueMessage<typeof DeliveryMessageSchema> = { kind: 'webhook delivery', schema: DeliveryMessageSchema };
