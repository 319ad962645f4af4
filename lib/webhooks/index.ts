/**
 * What other features use of outbound webhooks: the notice a writer sends
 * after the transaction that put an event into the account's event record
 * (lib/events/account-events.ts). Only an SQS send, so the engine, the run
 * workers and the handlers that end things stay small.
 *
 *     await tx(...accountEventPut(table, accountId, event, now)...);
 *     await webhookNotices().announce(accountId, { id: event.id, type: event.type, created_at: now.toISOString() });
 *
 * At least once: announce again whenever the step after the commit is
 * repeated (a redelivered message); the dispatcher creates each delivery once.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { sqsClient } from '#platform/aws/clients.js';
import { queueUrlVariable } from '#platform/queues.js';
import { WEBHOOK_EVENTS_QUEUE } from './queues.js';

/** The event as recorded: its id, its type and its `created_at` (the record's sort key is `<created_at>#<id>`). */
export interface AccountEventRef {
  id: string;
  type: string;
  created_at: string;
}

/** The message of the `webhook-events` queue (lib/webhooks/queues.ts). */
export interface WebhookNotice {
  account_id: string;
  event_id: string;
  event_type: string;
  created_at: string;
}

/** Tells the webhooks that `event` was recorded for `accountId` (after the commit, never before). */
export type AnnounceEvent = (accountId: string, event: AccountEventRef) => Promise<void>;

export interface WebhookNotices {
  announce: AnnounceEvent;
}

const announce: AnnounceEvent = async (accountId, event) => {
  const variable = queueUrlVariable(WEBHOOK_EVENTS_QUEUE);
  const queueUrl = process.env[variable];
  if (!queueUrl) throw new Error(`${variable} is not set`);
  const notice: WebhookNotice = { account_id: accountId, event_id: event.id, event_type: event.type, created_at: event.created_at };
  await sqsClient().send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(notice) }));
};

/** The service's notices (its `webhook-events` queue), for default parameters. */
export const webhookNotices = (): WebhookNotices => ({ announce });
