import { acquireSlot, concurrencyRefusal } from '#accounts/index.js';
import { activityUpdate, utcDay } from '#billing/index.js';
import type { TableRef } from '#platform/table/table.js';
import { transactWrite } from '#platform/table/transactions.js';
import type { Part, WorkStart } from './model.js';
import { cancellationOf, itemsOf } from './parts.js';

/**
 * Starts work (a workflow request, a run) in one transaction: its own items
 * (`subject`), its count in the activity of the day it starts (counted
 * exactly when it exists), and, with a `concurrencyLimit`, a slot of the
 * account's work in progress, which its end gives back (settle). Refused by
 * the slot: the account is at its limit, 429 `rate_limited`
 * (concurrencyRefusal). Refused by its own items: `refused` (a place it
 * takes was taken: the caller reads again and decides). Transactions that
 * only conflicted are sent again (transactWrite).
 */
export async function startWork(table: TableRef, work: WorkStart): Promise<'started' | 'refused'> {
  // A start that counts nothing in the day (a redrive: the request was counted when it was created) has no day part.
  const counted = Object.values(work.activity).some((count) => count !== undefined && count > 0);
  const parts: Part[] = [
    { name: 'subject', items: work.subject },
    ...(counted ? [{ name: 'day' as const, items: [activityUpdate(table.tableName, work.accountId, utcDay(work.at), work.activity)] }] : []),
    ...(work.concurrencyLimit === undefined ? [] : [{ name: 'slot' as const, items: [acquireSlot(table.tableName, work.accountId, work.concurrencyLimit)] }]),
  ];
  try {
    await transactWrite(table.db, { TransactItems: itemsOf(parts) });
    return 'started';
  } catch (error) {
    const cancellation = cancellationOf(error, parts);
    if (cancellation?.refused.includes('slot')) throw concurrencyRefusal(work.concurrencyLimit!);
    if (cancellation?.refused.includes('subject')) return 'refused';
    throw error;
  }
}
