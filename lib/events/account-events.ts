import { keys, ttlFromDate } from '#platform/table/keys.js';
import type { TableRef } from '#platform/table/table.js';
import type { TransactItem } from '#platform/table/transactions.js';

/**
 * The account's event record: what happened to an account's resources
 * (`evaluation.completed` now; `workflow_request.*`, `run.*` and
 * `interaction.created` when their features write them), one item per
 * event in time order under the account (docs/data-model.md). It is the
 * record the outbound webhooks (decisions.md, Webhooks) deliver from, so an
 * event is written in the same transaction as the change it reports:
 * never a change without its event, never an event twice. The event's id
 * is chosen by the writer from the change (a name-based id), so it stays
 * the same on every retry of the transaction (the webhook's `webhook-id`).
 */

/** How long an event is kept after it was written (the webhooks' retries end within a day and a half). */
export const ACCOUNT_EVENT_RETENTION_SECONDS = 30 * 24 * 60 * 60;

export interface AccountEvent {
  id: string;
  /** decisions.md's event types: `evaluation.completed`, … */
  type: string;
  /** The resource as the API shows it. */
  data: Record<string, unknown>;
}

/** The Put of one event, for the transaction of the change it reports; its key is free unless this very event was written. */
export function accountEventPut(table: Pick<TableRef, 'tableName'>, accountId: string, event: AccountEvent, now: Date): TransactItem {
  const createdAt = now.toISOString();
  return {
    Put: {
      TableName: table.tableName,
      Item: {
        ...keys.accountEvent(accountId, createdAt, event.id),
        entity: 'account_event',
        id: event.id,
        account_id: accountId,
        type: event.type,
        data: event.data,
        created_at: createdAt,
        ttl: ttlFromDate(now) + ACCOUNT_EVENT_RETENTION_SECONDS,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}
