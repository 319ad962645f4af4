import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { entityOf } from '#platform/table/items.js';
import { keys, ttlFromDate } from '#platform/table/keys.js';
import { defaultTable, nowIso, type TableRef } from '#platform/table/table.js';
import type { Session } from './model.js';

export function sessionsRepo(table: TableRef = defaultTable()) {
  const { db, tableName } = table;
  return {
    async put(sessionHash: string, accountId: string, expiresAt: Date): Promise<Session> {
      const session = { account_id: accountId, created_at: nowIso(), expires_at: expiresAt.toISOString() };
      await db.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...keys.session(sessionHash), entity: 'session', ...session, ttl: ttlFromDate(expiresAt) },
        }),
      );
      return session;
    },

    /** TTL deletion can lag by days, so expiry is checked here too. */
    async get(sessionHash: string, now = new Date()): Promise<Session | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.session(sessionHash), ConsistentRead: true }));
      if (!Item || Date.parse(Item.expires_at as string) <= now.getTime()) return undefined;
      return entityOf<Session>(Item);
    },

    async delete(sessionHash: string): Promise<void> {
      await db.send(new DeleteCommand({ TableName: tableName, Key: keys.session(sessionHash) }));
    },
  };
}

export type SessionsRepo = ReturnType<typeof sessionsRepo>;
