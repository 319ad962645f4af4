import { releaseSlot } from '#accounts/index.js';
import { activityUpdate, type billing, utcDay } from '#billing/index.js';
import { accountEventPut } from '#events/account-events.js';
import { UnavailableError } from '#platform/errors.js';
import { logger } from '#platform/observability/logger.js';
import { isRefusedForContent, type TableRef } from '#platform/table/table.js';
import { transactWrite } from '#platform/table/transactions.js';
import type { UsageMeter } from '#usage/index.js';
import type { Part, Settlement, Work, WorkEnd } from './model.js';
import { cancellationOf, itemsOf, refusedOnly } from './parts.js';

export interface SettleDeps {
  table: TableRef;
  meter: Pick<UsageMeter, 'record'>;
  wallet: Pick<ReturnType<typeof billing>, 'debitWith'>;
}

/**
 * Attempts of one settlement before it gives up (503): a window opened
 * meanwhile (the usage part refused: its windows are read again), another
 * transaction holding one of its items, a slot counter found at 0.
 */
export const SETTLE_ATTEMPTS = 8;

/**
 * Settles work (lib/settlement/model.ts, Work): one transaction of named
 * parts, the ledger's debit first when the work ends with extra-funded
 * usage. The one retry rule, by the part that refused:
 * - `subject`: someone changed the work first; nothing is retried, the
 *   caller reads again (Refused).
 * - `usage` alone: a usage window opened meanwhile; its windows are read
 *   and the transaction built again.
 * - `slot` alone: the counter of work in progress was already 0 (set by
 *   hand); the end goes through without giving a slot back, with a warning.
 * - another transaction held an item (no part refused): sent again with
 *   backoff (transactWrite, as every transaction of the service).
 * - the ledger's own refusals (a balance or position that moved) are retried
 *   by billing with fresh items.
 * Refused for what it holds, the work's `unrecordable` form is settled
 * instead. After the commit, `afterCommit` runs; a refused settlement runs
 * nothing.
 */
export async function settle<T>(deps: SettleDeps, work: Work<T>): Promise<Settlement<T>> {
  let current = work;
  let unrecordable = false;
  let releases = work.end?.releasesSlot ?? false;
  for (let attempt = 1; ; attempt++) {
    const recorded = current.usageMicroUsd ? await deps.meter.record(current.accountId, current.usageMicroUsd) : undefined;
    const extraMicroUsd = recorded?.extraMicroUsd ?? 0;
    const subject = current.subject({ extraMicroUsd });
    const parts: Part[] = [
      { name: 'subject', items: subject.items },
      ...(recorded ? [{ name: 'usage' as const, items: [recorded.item] }] : []),
      ...endParts(deps.table, current.accountId, current.end, releases),
    ];
    let sent: Part[] = parts;
    let error: unknown;
    try {
      const debit = (current.end?.extraBeforeMicroUsd ?? 0) + extraMicroUsd;
      if (current.end && debit > 0) {
        const { id, description, metadata } = current.end.debit;
        await deps.wallet.debitWith({ id, accountId: current.accountId, amountMicroUsd: debit, description, metadata }, async (ledger) => {
          sent = [{ name: 'debit', items: ledger }, ...parts];
          await send(deps.table, sent);
        });
      } else {
        await send(deps.table, parts);
      }
    } catch (refusal) {
      error = refusal;
    }
    if (error === undefined) {
      // Outside the transaction's error handling: what follows the commit may fail on its own (and its redelivery repeats it), never as a refusal of this settlement.
      const settled = { settled: true as const, result: subject.result, extraMicroUsd, unrecordable };
      await current.afterCommit?.(settled);
      return settled;
    }
    if (isRefusedForContent(error) && current.unrecordable && !unrecordable) {
      logger().error('work’s settlement was refused for what it holds; its unrecordable form is settled instead', {
        account_id: current.accountId,
        error: error as Error,
      });
      current = await current.unrecordable();
      unrecordable = true;
      continue;
    }
    const cancellation = cancellationOf(error, sent);
    if (!cancellation) throw error;
    if (cancellation.refused.includes('subject')) return { settled: false, refusedBy: 'subject' };
    if (refusedOnly(cancellation, 'slot') && releases) {
      logger().warn('in_progress was already 0 when work gave its slot back', { account_id: current.accountId });
      releases = false;
    } else if (!refusedOnly(cancellation, 'usage')) {
      // A window opened meanwhile is the one refusal read again; conflicts that outlasted transactWrite's tries end here too.
      throw error;
    }
    if (attempt >= SETTLE_ATTEMPTS) throw new UnavailableError('The account’s usage or wallet is changing too fast to settle now; retry.');
  }
}

/** The parts an end adds: its day's counts, its account event, its slot given back. */
function endParts(table: TableRef, accountId: string, end: WorkEnd | undefined, releases: boolean): Part[] {
  if (!end) return [];
  const counted = Object.values(end.activity).some((count) => count !== undefined && count > 0);
  return [
    ...(counted ? [{ name: 'day' as const, items: [activityUpdate(table.tableName, accountId, utcDay(end.at), end.activity)] }] : []),
    ...(end.event ? [{ name: 'account_event' as const, items: [accountEventPut(table, accountId, end.event, end.at)] }] : []),
    ...(releases ? [{ name: 'slot' as const, items: [releaseSlot(table.tableName, accountId)] }] : []),
  ];
}

const send = (table: TableRef, parts: readonly Part[]): Promise<void> => transactWrite(table.db, { TransactItems: itemsOf(parts) });
