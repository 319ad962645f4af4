import { sendToQueue } from '#platform/aws/send-to-queue.js';
import type { DeliveryMessage } from './queue-messages.js';
import { WEBHOOK_DELIVERIES_QUEUE } from './queues.js';
import { sqsDelaySeconds } from './schedule.js';

/** One attempt of a delivery, as the `webhook-deliveries` queue carries it (lib/webhooks/queues.ts); its schema, for the workers, is in queue-messages.ts. */
export type { DeliveryMessage } from './queue-messages.js';

/** Sends the message, held by SQS until it is due or for 900 s at most (then chained). */
export type SendDelivery = (message: DeliveryMessage, now?: Date) => Promise<void>;

export const sendDelivery: SendDelivery = (message, now = new Date()) =>
  sendToQueue(WEBHOOK_DELIVERIES_QUEUE, message, sqsDelaySeconds(message.due_at, now.getTime()));
