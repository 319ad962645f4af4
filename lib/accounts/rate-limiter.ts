import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { type LimitsInForce, RATE_WINDOW_MS } from '#platform/config/plans.js';
import { RateLimitedError } from '#platform/errors.js';
import { keys } from '#platform/table/keys.js';
import { defaultTable, isConditionFailure, type TableRef } from '#platform/table/table.js';

/**
 * The request rate of decisions.md (Rate limits): per account, `rps`
 * requests per second with bursts of `burst = 2 × rps`, enforced as a
 * sliding log: at most `burst` requests admitted in any window of
 * RATE_WINDOW_MS (2 s). A client may spend its whole burst at once, then
 * gets the next request when the oldest of that burst is 2 s old; sustained,
 * that is `rps`.
 *
 * Why a log and not a token bucket: a bucket's refill needs `max(last, now)`
 * and a multiplication, and DynamoDB expressions have neither, so a bucket
 * would take a read and a write. The log needs neither: the account's item
 * holds the times (epoch ms) of its last `burst` admissions, oldest first,
 * and one conditional UpdateItem admits a request when the oldest of them is
 * at least a window old, dropping it and appending now:
 *
 *   REMOVE admitted_at[0] SET admitted_at[burst] = :now
 *   IF size(admitted_at) = :burst AND admitted_at[0] <= :now - window
 *
 * DynamoDB applies conditional writes to one item one at a time, so under
 * any concurrency no window ever holds more than `burst` admissions. A
 * refused request writes nothing and is answered 429 with the wait until
 * that oldest admission leaves the window (the item comes back with the
 * refusal, ReturnValuesOnConditionCheckFailure). The log is sized to the
 * burst in force: when the item is missing, or was sized for other limits
 * (an operator changed them, the plan changed), the refusal shows it and a
 * second write rebuilds it at the new size, keeping the newest admissions,
 * before admitting; so new limits apply on the very next request.
 */
export interface RateLimiter {
  /** Resolves when the account may make one more request now; rejects with RateLimitedError when it may not. */
  admit(accountId: string, limits: Pick<LimitsInForce, 'requestsPerSecond' | 'burst'>): Promise<void>;
}

const LOG = 'admitted_at';
/** Rebuilds lost to concurrent rebuilds before the request is refused (it then retries after a second, never let through unchecked). */
const MAX_ATTEMPTS = 4;

/** The log at another size: its newest `burst` admissions, padded with 0 (never admitted: always out of the window) in front. */
export function resizedLog(log: readonly number[], burst: number): number[] {
  const newest = log.slice(Math.max(0, log.length - burst));
  return [...Array.from({ length: burst - newest.length }, () => 0), ...newest];
}

/** The refusal, with the wait until the oldest admission of the log leaves the window. */
function refusal(oldest: number, now: number, limits: Pick<LimitsInForce, 'requestsPerSecond' | 'burst'>): RateLimitedError {
  const seconds = Math.max(1, Math.ceil((oldest + RATE_WINDOW_MS - now) / 1000));
  return new RateLimitedError(
    `The account made more requests than its limit of ${limits.requestsPerSecond} per second (bursts of ${limits.burst} within ${RATE_WINDOW_MS / 1000} seconds); retry after ${seconds === 1 ? '1 second' : `${seconds} seconds`}.`,
    seconds,
  );
}

/** The log the refused write saw: undefined when there is no item, or none in it. */
function logOfRefusal(error: unknown): number[] | undefined {
  const item = (error as { Item?: Parameters<typeof unmarshall>[0] }).Item;
  const log = item ? unmarshall(item)[LOG] : undefined;
  return Array.isArray(log) ? log.map(Number) : undefined;
}

export function requestRateLimiter(table: TableRef = defaultTable(), clock: () => number = Date.now): RateLimiter {
  const { db, tableName } = table;
  const key = (accountId: string) => keys.rateLog(accountId);

  /** Writes a rebuilt log in place of `old` (none: no log yet); false when another write got there first. */
  async function rebuild(accountId: string, old: number[] | undefined, next: number[]): Promise<boolean> {
    try {
      await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: key(accountId),
          UpdateExpression: 'SET #log = :next, entity = :entity, account_id = :account',
          ConditionExpression: old ? '#log = :old' : 'attribute_not_exists(#log)',
          ExpressionAttributeNames: { '#log': LOG },
          ExpressionAttributeValues: { ':next': next, ':entity': 'rate_log', ':account': accountId, ...(old ? { ':old': old } : {}) },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  return {
    async admit(accountId, limits) {
      const { burst } = limits;
      if (!Number.isSafeInteger(burst) || burst < 1) throw new RangeError(`a burst is a positive integer, not ${burst}`);
      let now = clock();
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++, now = clock()) {
        try {
          await db.send(
            new UpdateCommand({
              TableName: tableName,
              Key: key(accountId),
              // The index is the burst itself: REMOVE shifts the list down by one, SET appends past its end.
              UpdateExpression: `REMOVE #log[0] SET #log[${burst}] = :now`,
              ConditionExpression: 'size(#log) = :burst AND #log[0] <= :cutoff',
              ExpressionAttributeNames: { '#log': LOG },
              ExpressionAttributeValues: { ':now': now, ':burst': burst, ':cutoff': now - RATE_WINDOW_MS },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            }),
          );
          return;
        } catch (error) {
          if (!isConditionFailure(error)) throw error;
          const old = logOfRefusal(error);
          if (old?.length === burst) throw refusal(old[0]!, now, limits);
          // No log yet, or one sized for other limits: rebuild it at this burst, admitting this request if the rebuilt log allows it.
          const resized = resizedLog(old ?? [], burst);
          if (resized[0]! > now - RATE_WINDOW_MS) throw refusal(resized[0]!, now, limits);
          if (await rebuild(accountId, old, [...resized.slice(1), now])) return;
        }
      }
      throw new RateLimitedError('Too many requests of this account arrived at once; retry after a second.', 1);
    },
  };
}
