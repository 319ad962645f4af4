import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { entityOf } from '#platform/table/items.js';
import { keys } from '#platform/table/keys.js';
import { defaultTable, type TableRef } from '#platform/table/table.js';
import type { TransactItem } from '#platform/table/transactions.js';
import { utcMonth, WINDOW_ATTRIBUTES, WINDOW_KINDS, type WindowsItem, windowAt } from './model.js';

/**
 * The account's windows item (docs/data-model.md, usage windows): one item
 * holding both windows and the month's extra spend, so a check is one
 * GetItem and a cost one Update inside the transaction that settles it.
 */
export function usageRepo(table: TableRef = defaultTable()) {
  const { db, tableName } = table;
  return {
    /** The windows as the item holds them ({} when nothing was ever recorded). */
    async read(accountId: string): Promise<WindowsItem> {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.usageWindows(accountId), ConsistentRead: true }));
      return entityOf<WindowsItem>(Item ?? {}, ['account_id']);
    },
    tableName,
  };
}

/**
 * The Update that records `cost` (and its extra-funded part `extra`) into
 * the windows as `seen` had them at `now`. A window still open gets the
 * cost added (`ADD`); a closed or never opened one is opened now with it
 * (`SET`). DynamoDB cannot compare times inside an update, so the branch is
 * chosen on what was read, and the condition holds the write to it: the
 * window starts (and the extra month) must still be what was read. Costs of
 * one open window never collide (ADD); only two writers opening the same
 * window at once do, and the loser's whole transaction is refused, to be
 * read again and retried by its caller. It rides in the transaction of the
 * change that settles the cost, so a cost is recorded exactly when it settles.
 */
export function recordUsageItem(tableName: string, accountId: string, seen: WindowsItem, cost: number, extra: number, now: number): TransactItem {
  if (!Number.isSafeInteger(cost) || cost <= 0) throw new RangeError(`a recorded cost is a positive integer, not ${cost}`);
  const sets = ['entity = :entity', 'account_id = :account'];
  const adds: string[] = [];
  const conditions: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':entity': 'usage_windows', ':account': accountId, ':cost': cost };
  for (const kind of WINDOW_KINDS) {
    const { start, used } = WINDOW_ATTRIBUTES[kind];
    names[`#${start}`] = start;
    names[`#${used}`] = used;
    const state = windowAt(seen, kind, now);
    if (state.open) adds.push(`#${used} :cost`);
    else {
      sets.push(`#${start} = :now`, `#${used} = :cost`);
      values[':now'] = now;
    }
    if (seen[start] === undefined) conditions.push(`attribute_not_exists(#${start})`);
    else {
      conditions.push(`#${start} = :seen_${start}`);
      values[`:seen_${start}`] = seen[start];
    }
  }
  if (extra > 0) {
    names['#month'] = 'extra_month';
    names['#spent'] = 'extra_spent';
    values[':extra'] = extra;
    const month = utcMonth(now);
    if (seen.extra_month === month) adds.push('#spent :extra');
    else {
      sets.push('#month = :month', '#spent = :extra');
      values[':month'] = month;
    }
    if (seen.extra_month === undefined) conditions.push('attribute_not_exists(#month)');
    else {
      conditions.push('#month = :seen_month');
      values[':seen_month'] = seen.extra_month;
    }
  }
  return {
    Update: {
      TableName: tableName,
      Key: keys.usageWindows(accountId),
      UpdateExpression: `SET ${sets.join(', ')}${adds.length ? ` ADD ${adds.join(', ')}` : ''}`,
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}
