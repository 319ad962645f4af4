/**
 * Settlement: where billable work starts and ends (decisions.md, Money and
 * Rate limits). The features that run work (runs, workflow requests, and
 * through them evaluations; schedules and forks later) build their own
 * items; settlement puts them in one transaction with what moves with them
 * (usage windows, the day's activity, the account's event, the slot of work
 * in progress, the ledger's debit), reports a refusal by the name of the
 * part that refused, owns the retry rule, and runs what follows the commit.
 * It stands between those features and billing, accounts and usage: they
 * import it, it imports none of them back.
 */
import { billing } from '#billing/index.js';
import { defaultTable, type TableRef } from '#platform/table/table.js';
import { usageMeter } from '#usage/index.js';
import type { Settlement, Work, WorkStart } from './model.js';
import { type SettleDeps, settle } from './settle.js';
import { startWork } from './start.js';

export type { PartName, Recorded, Settled, Settlement, Work, WorkEnd, WorkStart } from './model.js';
export { SETTLE_ATTEMPTS, type SettleDeps } from './settle.js';

export interface Settlements {
  /** Starts work with its day's count and, with a limit, its slot: `refused` when its own items were refused; 429 when the account is at its limit. */
  start(work: WorkStart): Promise<'started' | 'refused'>;
  /** Settles work that used something or ended (settle.ts has the rule). */
  settle<T>(work: Work<T>): Promise<Settlement<T>>;
}

export function settlements(
  table: TableRef = defaultTable(),
  money: Omit<SettleDeps, 'table'> = { meter: usageMeter(table), wallet: billing(table) },
): Settlements {
  return {
    start: (work) => startWork(table, work),
    settle: (work) => settle({ table, ...money }, work),
  };
}
