import type { Key } from './keys.js';
import { cancellationReasons, type TableRef } from './table.js';
import { type TransactItem, transactWrite } from './transactions.js';

type PutInput = NonNullable<TransactItem['Put']>;
type DeleteInput = NonNullable<TransactItem['Delete']>;

/**
 * Items an account may have at most `limit` of (webhook endpoints, hooks):
 * a counter item per kind (`count`), raised in the transaction that puts
 * one on condition that it is below the limit, and lowered in the one that
 * deletes one. Concurrent creates serialize on the counter, so the account
 * never holds more than the limit.
 */
export interface Counter {
  /** The counter item's key (lib/platform/table/keys.ts). */
  key: Key;
  accountId: string;
  /** The counter's `entity`, for reading the table by hand. */
  entity: string;
}

/** What became of a counted put: `limit` when the account has `limit` already, `exists` when the item's own condition refused it. */
export type CountedPut = 'put' | 'limit' | 'exists';

export async function putCounted(table: TableRef, counter: Counter, limit: number, put: PutInput): Promise<CountedPut> {
  if (limit < 1) return 'limit';
  const raise: TransactItem = {
    Update: {
      TableName: table.tableName,
      Key: counter.key,
      UpdateExpression: 'SET entity = :entity, account_id = :account ADD #count :one',
      ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':entity': counter.entity, ':account': counter.accountId, ':one': 1, ':limit': limit },
    },
  };
  const refusal = await refusedAt(table, [raise, { Put: put }]);
  return refusal === undefined ? 'put' : refusal === 0 ? 'limit' : 'exists';
}

/** Deletes the item and lowers the counter: false when the delete's own condition refused it (the item was not there). */
export async function deleteCounted(table: TableRef, counter: Counter, remove: DeleteInput): Promise<boolean> {
  const lower: TransactItem = {
    Update: {
      TableName: table.tableName,
      Key: counter.key,
      UpdateExpression: 'ADD #count :minus_one',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':minus_one': -1 },
    },
  };
  return (await refusedAt(table, [{ Delete: remove }, lower])) === undefined;
}

/** Sends the transaction (a conflict is retried): undefined, or the index of the item whose condition refused it. */
async function refusedAt(table: TableRef, items: TransactItem[]): Promise<number | undefined> {
  try {
    await transactWrite(table.db, { TransactItems: items });
    return undefined;
  } catch (error) {
    const index = cancellationReasons(error)?.findIndex((reason) => reason.Code === 'ConditionalCheckFailed') ?? -1;
    if (index < 0) throw error;
    return index;
  }
}
