import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#platform/table/keys.js';
import { defaultTable, type TableRef } from '#platform/table/table.js';
import type { TransactItem } from '#platform/table/transactions.js';
import { addCounts } from '#platform/table/update-expressions.js';
import { type ActivityCounts, addDays, type DailyActivityEntry, isDay, utcDay } from './model.js';

/**
 * Daily activity (decisions.md, Money: Activity): one counter item per
 * account and UTC day, raised by the transaction of the change it counts
 * (a workflow request created, a request's node executions settled, a run
 * created, usage cost recorded), so a redelivered change that loses its own
 * condition never counts twice. A read is one Query of at most `days` items.
 */

const ATTRIBUTES: Record<keyof ActivityCounts, string> = {
  cost_micro_usd: 'cost_micro_usd',
  requests: 'request_count',
  nodes: 'node_count',
  runs: 'run_count',
};

/**
 * The `Update` of a TransactWriteItems that adds `counts` to the account's
 * day `day` (`YYYY-MM-DD`, UTC: `utcDay(at)`), creating the item on its
 * first count. Put it in the same transaction as the change it counts. One
 * transaction may touch an item once only: give all of one day's counts of
 * that change in one call.
 */
export function activityUpdate(tableName: string, accountId: string, day: string, counts: ActivityCounts): TransactItem {
  if (!isDay(day)) throw new RangeError(`activity day must be YYYY-MM-DD, not ${day}`);
  const adds: Record<string, number> = {};
  for (const [name, attribute] of Object.entries(ATTRIBUTES) as Array<[keyof ActivityCounts, string]>) {
    const value = counts[name];
    if (value === undefined || value === 0) continue;
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`activity ${name} must be a non-negative integer, not ${value}`);
    adds[attribute] = value;
  }
  const { update, names, values } = addCounts(adds, { date: day, account_id: accountId, entity: 'activity_day' });
  return {
    Update: {
      TableName: tableName,
      Key: keys.activityDay(accountId, day),
      UpdateExpression: update,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

export function activityRepo(table: TableRef = defaultTable()) {
  const { db, tableName } = table;
  return {
    /** The counter items of the days `from`…`to` (inclusive), by day; days without activity have none. */
    async days(accountId: string, from: string, to: string): Promise<Map<string, Record<string, unknown>>> {
      const { Items } = await db.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: {
            ':pk': keys.activityDay(accountId, from).pk,
            ':from': keys.activityDay(accountId, from).sk,
            ':to': keys.activityDay(accountId, to).sk,
          },
          // Read after write: activity a client just caused is there.
          ConsistentRead: true,
        }),
      );
      return new Map((Items ?? []).map((item) => [String(item.date), item]));
    },
  };
}

export type ActivityRepo = ReturnType<typeof activityRepo>;

/** The `days` UTC days ending today, oldest first, one entry each (zero when nothing happened). 366 items are far below a Query page's 1 MB. */
export async function dailyActivity(
  repo: Pick<ActivityRepo, 'days'>,
  accountId: string,
  days: number,
  today = utcDay(new Date()),
): Promise<DailyActivityEntry[]> {
  const first = addDays(today, -(days - 1));
  const found = await repo.days(accountId, first, today);
  return Array.from({ length: days }, (_, i) => {
    const date = addDays(first, i);
    const item = found.get(date);
    return {
      date,
      total_cost: Number(item?.cost_micro_usd ?? 0) / 1_000_000,
      request_count: Number(item?.request_count ?? 0),
      node_count: Number(item?.node_count ?? 0),
      run_count: Number(item?.run_count ?? 0),
    };
  });
}
