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
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { sendToQueue } from '#platform/aws/send-to-queue.js';
import { keys } from '#platform/table/keys.js';
import { defaultTable, type TableRef } from '#platform/table/table.js';
import type { WebhookNotice } from './queue-messages.js';
import { WEBHOOK_EVENTS_QUEUE } from './queues.js';

/** The event as recorded: its id, its type and its `created_at` (the record's sort key is `<created_at>#<id>`). */
export interface AccountEventRef {
  id: string;
  type: string;
  created_at: string;
}

/** The message of the `webhook-events` queue (lib/webhooks/queues.ts); its schema, for the workers, is in queue-messages.ts. */
export type { WebhookNotice } from './queue-messages.js';

/** Tells the webhooks that `event` was recorded for `accountId` (after the commit, never before). */
export type AnnounceEvent = (accountId: string, event: AccountEventRef) => Promise<void>;

export interface WebhookNotices {
  announce: AnnounceEvent;
  /**
   * Whether any enabled endpoint of the account takes events of `type`: a
   * writer whose every change could be an event (a workflow request's end)
   * asks first, so an account with no endpoint pays one small read, not an
   * event item and a notice.
   */
  listening(accountId: string, type: string): Promise<boolean>;
}

const announce: AnnounceEvent = async (accountId, event) => {
  const notice: WebhookNotice = { account_id: accountId, event_id: event.id, event_type: event.type, created_at: event.created_at };
  await sendToQueue(WEBHOOK_EVENTS_QUEUE, notice);
};

/** The service's notices (its `webhook-events` queue), for default parameters. */
export const webhookNotices = (given?: TableRef): WebhookNotices => ({
  announce,
  async listening(accountId, type) {
    const table = given ?? defaultTable();
    const prefix = keys.webhookEndpointPrefix(accountId);
    const { Count } = await table.db.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        FilterExpression: '#disabled = :false AND contains(#events, :type)',
        ExpressionAttributeNames: { '#disabled': 'disabled', '#events': 'events' },
        ExpressionAttributeValues: { ':pk': prefix.pk, ':prefix': prefix.skPrefix, ':false': false, ':type': type },
        Select: 'COUNT',
      }),
    );
    return (Count ?? 0) > 0;
  },
});
