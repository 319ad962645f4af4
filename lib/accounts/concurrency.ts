import { RateLimitedError } from '#platform/errors.js';
import { keys } from '#platform/table/keys.js';
import type { TransactItem } from '#platform/table/transactions.js';

/**
 * The ceiling on work in progress (decisions.md, Rate limits): at most
 * `concurrency` workflow requests plus runs of an account in progress at
 * once. One counter item per account (`in_progress`), moved only inside the
 * transactions that change the work's state: `acquire` rides on the
 * transaction that creates a request or a run, `release` on the one that
 * moves it to a terminal status. Those transactions happen once per request
 * or run (their own conditions guard them), so the counter is raised and
 * lowered exactly once each, whatever is redelivered or retried; and its
 * conditions make the ceiling exact under any concurrency.
 *
 * A holder records that it holds a slot (e.g. `concurrency_slot: true` on its
 * item, written by the creating transaction) and releases only then, so work
 * created before the ceiling existed, or not counted (a child request), never
 * lowers the counter.
 */

/** Seconds a refused creation is told to wait: a slot frees when some work ends, which the service cannot foresee. */
export const CONCURRENCY_RETRY_AFTER_SECONDS = 2;

/** Takes a slot: refused (the transaction cancelled, ConditionalCheckFailed on this item) when `limit` are in progress. */
export function acquireSlot(tableName: string, accountId: string, limit: number): TransactItem {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`a concurrency limit is a non-negative integer, not ${limit}`);
  return {
    Update: {
      TableName: tableName,
      Key: keys.inProgress(accountId),
      UpdateExpression: 'SET entity = :entity, account_id = :account ADD in_progress :one',
      ConditionExpression: 'attribute_not_exists(in_progress) OR in_progress < :limit',
      ExpressionAttributeValues: { ':entity': 'in_progress', ':account': accountId, ':one': 1, ':limit': limit },
    },
  };
}

/** Gives a slot back; its condition keeps the counter from going below zero. */
export function releaseSlot(tableName: string, accountId: string): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: keys.inProgress(accountId),
      UpdateExpression: 'ADD in_progress :minus',
      ConditionExpression: 'in_progress > :zero',
      ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
    },
  };
}

/** What a creation refused by its acquire answers: 429 `rate_limited` with a wait. */
export function concurrencyRefusal(limit: number): RateLimitedError {
  return new RateLimitedError(
    `The account has ${limit} workflow requests and runs in progress, its limit; retry when one has ended (after ${CONCURRENCY_RETRY_AFTER_SECONDS} seconds or more).`,
    CONCURRENCY_RETRY_AFTER_SECONDS,
  );
}
