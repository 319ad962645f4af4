import { sendToQueue } from '#platform/aws/send-to-queue.js';
import { WEBHOOK_DELIVERIES_QUEUE } from './queues.js';
import { sqsDelaySeconds } from './schedule.js';

/** One attempt of a delivery, as the `webhook-deliveries` queue carries it (lib/webhooks/queues.ts). */
export interface DeliveryMessage {
  delivery_id: string;
  endpoint_id: string;
  account_id: string;
  /** The delivery's series this attempt belongs to; a retry (POST …/retry) starts another and makes this one stale. */
  series: number;
  /** Which attempt, counted over every series: the delivery must have made `attempt - 1`. */
  attempt: number;
  /** Epoch ms when the attempt is due: a message that arrives earlier is sent again with the rest of the wait. */
  due_at: number;
}

/** Sends the message, held by SQS until it is due or for 900 s at most (then chained). */
export type SendDelivery = (message: DeliveryMessage, now?: Date) => Promise<void>;

export const sendDelivery: SendDelivery = (message, now = new Date()) =>
  sendToQueue(WEBHOOK_DELIVERIES_QUEUE, message, sqsDelaySeconds(message.due_at, now.getTime()));
