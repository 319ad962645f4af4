/**
 * What other features use of metering (decisions.md, Money): the quota
 * document, the check at creation (429 `usage_window_exceeded`, 403
 * `insufficient_balance`), the check before each node execution and model
 * turn (a failure, not an HTTP error), and the Update that records a cost in
 * the transaction that settles it, with its extra-funded part.
 */
import { accountLookup } from '#accounts/index.js';
import { NotFoundError } from '#platform/errors.js';
import { logger } from '#platform/observability/logger.js';
import { defaultTable, type TableRef } from '#platform/table/table.js';
import type { TransactItem } from '#platform/table/transactions.js';
import { InsufficientBalanceError, UsageWindowExceededError } from './errors.js';
import {
  type FundingAccount,
  MIN_BALANCE_MICRO_USD,
  type QuotaDocument,
  quotaDocument,
  type UsageFailure,
  unfundedBy,
  type WindowsItem,
  withPending,
} from './model.js';
import { recordUsageItem, usageRepo } from './usage-repository.js';

export { InsufficientBalanceError, UsageWindowExceededError } from './errors.js';
export { MIN_BALANCE_MICRO_USD, type Mode, type QuotaDocument, type UsageFailure, WINDOW_SECONDS } from './model.js';

/**
 * Usage the work has settled that the windows do not hold yet (a workflow
 * request's flat fees, kept on its nodes until its end records them): the
 * most it can be, known without reading, and the exact sum, read only when
 * that bound cannot decide (near a limit).
 */
export interface PendingUsage {
  atMost: number;
  exact: () => Promise<number>;
}

/** What the work owes that the account's items do not show yet. */
export interface Owed {
  /** Its extra-funded usage recorded so far and not yet debited (the debit comes with its end), as the caller knows it. */
  unpaidExtraMicroUsd: number;
  /**
   * Given when the caller's `unpaidExtraMicroUsd` may be behind (it only
   * grows: the work's copy was read earlier): reads it as it stands, when
   * the wallet decides (extra usage funds the call).
   */
  unpaidExtraNow?: () => Promise<number>;
  /** Absent: none (a run records every cost as it settles). */
  pending?: PendingUsage;
}

export interface UsageMeter {
  /** The caller's quota document now (GET /v2/usage, the body of the 429); `account` when the caller has read it already, else it is read. */
  document(accountId: string, account?: FundingAccount): Promise<QuotaDocument>;
  /** At creation: resolves when the call is funded; throws UsageWindowExceededError (429) or InsufficientBalanceError (403). `account` as for `document`. */
  admit(accountId: string, account?: FundingAccount): Promise<void>;
  /**
   * Before a node execution or a model turn, against all the usage so far:
   * what the windows hold (read within CHECK_REUSE_MS by this process, else
   * afresh) and what the work owes besides (`owed`): undefined when it is
   * funded; else why the work stops (model.ts, unfundedBy). Pending usage is
   * counted at its bound first; only when the bound would refuse is its
   * exact sum read (and an unpaid extra that may be behind, only when the
   * wallet decides), so a check with room to spare reads nothing of them.
   */
  check(accountId: string, owed: Owed): Promise<UsageFailure | undefined>;
  /**
   * The Update recording `cost` into the account's windows, for the caller's
   * own transaction, and the part of it extra usage funds: all of it when
   * the usage recorded before it had filled a window and extra usage is on
   * (the mode that funds the call), else none. It starts from what a check
   * of this process read within CHECK_REUSE_MS, else reads; either way the
   * Update holds to what it was built on, so a transaction refused by it (a
   * window opened meanwhile) asks again, and the second ask always reads.
   */
  record(accountId: string, costMicroUsd: number, now?: Date): Promise<{ item: TransactItem; extraMicroUsd: number }>;
}

/**
 * How long a check may reuse the document it read: a 10-node chain runs
 * its nodes in one invocation within milliseconds, and reading the account
 * and its windows before each of them would cost more than the nodes. A
 * cost recorded by this process drops the account's copy at once.
 */
export const CHECK_REUSE_MS = 1000;
const checked = new Map<string, { at: number; funding: FundingAccount; windows: WindowsItem | undefined }>();

export function usageMeter(table: TableRef = defaultTable(), clock: () => number = Date.now): UsageMeter {
  const repo = usageRepo(table);
  const accounts = accountLookup(table);

  async function account(accountId: string): Promise<FundingAccount> {
    const found = await accounts.get(accountId);
    if (!found) throw new NotFoundError(`No account ${accountId}.`);
    return found;
  }

  async function document(accountId: string, known?: FundingAccount): Promise<QuotaDocument> {
    const { funding, windows } = await read(accountId, known);
    return quotaDocument(funding, windows, clock());
  }

  async function read(accountId: string, known?: FundingAccount): Promise<{ funding: FundingAccount; windows: WindowsItem | undefined }> {
    const [funding, windows] = await Promise.all([
      known ?? account(accountId),
      // A failed read of the windows is shown as `unknown`, not a 500 (specification, quota document).
      repo.read(accountId).catch((error: unknown) => {
        logger().warn('usage windows unreadable', { accountId, error });
        return undefined;
      }),
    ]);
    return { funding, windows };
  }

  /** What a check read within CHECK_REUSE_MS (taken out: whoever records reads afresh next time), else a fresh read. */
  async function recent(accountId: string, take: boolean) {
    const cacheKey = `${table.tableName}/${accountId}`;
    const seen = checked.get(cacheKey);
    if (take) checked.delete(cacheKey);
    if (seen && clock() - seen.at < CHECK_REUSE_MS) return seen;
    const fresh = { at: clock(), ...(await read(accountId)) };
    if (!take) {
      if (checked.size >= 1000) checked.clear(); // a bound, not an LRU: a miss costs two reads
      checked.set(cacheKey, fresh);
    }
    return fresh;
  }

  return {
    document,
    async admit(accountId, known) {
      const doc = await document(accountId, known);
      if (doc.mode === 'blocked') throw new UsageWindowExceededError(doc);
      if (doc.mode === 'extra' && doc.extra.wallet_micro_usd < MIN_BALANCE_MICRO_USD)
        throw new InsufficientBalanceError(doc.extra.wallet_micro_usd, MIN_BALANCE_MICRO_USD);
    },
    async check(accountId, { unpaidExtraMicroUsd, unpaidExtraNow, pending }) {
      const { funding, windows } = await recent(accountId, false);
      const now = clock();
      const verdict = (unpaid: number, pendingMicroUsd: number) => unfundedBy(funding, windows, now, unpaid, pendingMicroUsd);
      // Refused with the least the work can owe: refused (with the same code) whatever it owes.
      const least = verdict(unpaidExtraMicroUsd, 0);
      if (least) return least;
      // Funded with the most that can be pending: funded, unless the wallet decides on an unpaid extra that may be behind.
      const atMost = pending && pending.atMost > 0 ? pending.atMost : 0;
      const known = unpaidExtraNow ? quotaDocument(funding, withPending(windows, atMost, now), now).mode === 'plan' : !verdict(unpaidExtraMicroUsd, atMost);
      if (known) return undefined;
      const [unpaid, pendingMicroUsd] = await Promise.all([unpaidExtraNow ? unpaidExtraNow() : unpaidExtraMicroUsd, atMost > 0 ? pending!.exact() : 0]);
      return verdict(unpaid, pendingMicroUsd);
    },
    async record(accountId, costMicroUsd, now = new Date(clock())) {
      const reused = await recent(accountId, true);
      // A windows read that failed for a check is not built on: read again.
      const { funding, windows: seen } = reused.windows ? reused : await read(accountId);
      if (!seen) throw new Error(`the usage windows of account ${accountId} could not be read`);
      const mode = quotaDocument(funding, seen, now.getTime()).mode;
      const extraMicroUsd = mode === 'extra' ? costMicroUsd : 0;
      return { item: recordUsageItem(repo.tableName, accountId, seen, costMicroUsd, extraMicroUsd, now.getTime()), extraMicroUsd };
    },
  };
}
