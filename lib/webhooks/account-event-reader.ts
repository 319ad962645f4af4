import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#platform/table/keys.js';
import { defaultTable, type TableRef } from '#platform/table/table.js';

/** One event of the account's event record (lib/events/account-events.ts), as the webhooks deliver it. */
export interface RecordedEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
  created_at: string;
}

/** Reads one event by its key (account, `created_at`, id): a consistent read, so an event committed before its notice is found. */
export function accountEventReader(table: TableRef = defaultTable()) {
  const { db, tableName } = table;
  return {
    async get(accountId: string, createdAt: string, eventId: string): Promise<RecordedEvent | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.accountEvent(accountId, createdAt, eventId), ConsistentRead: true }));
      if (!Item || Item.account_id !== accountId) return undefined;
      return { id: Item.id as string, type: Item.type as string, data: (Item.data as Record<string, unknown>) ?? {}, created_at: Item.created_at as string };
    },
  };
}

export type AccountEventReader = ReturnType<typeof accountEventReader>;
