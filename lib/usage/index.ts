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
import { type FundingAccount, MIN_BALANCE_MICRO_USD, type QuotaDocument, quotaDocument, type WindowsItem } from './model.js';
import { recordUsageItem, usageRepo } from './usage-repository.js';

export { InsufficientBalanceError, UsageWindowExceededError } from './errors.js';
export { MIN_BALANCE_MICRO_USD, type Mode, type QuotaDocument, WINDOW_SECONDS } from './model.js';

/** Why work already going stops (decisions.md, During a run or request): both final, neither an HTTP error. */
export interface UsageFailure {
  code: 'usage_window_exceeded' | 'out_of_funds';
  message: string;
}

export interface UsageMeter {
  /** The caller's quota document now (GET /v2/usage, the body of the 429); `account` when the caller has read it already, else it is read. */
  document(accountId: string, account?: FundingAccount): Promise<QuotaDocument>;
  /** At creation: resolves when the call is funded; throws UsageWindowExceededError (429) or InsufficientBalanceError (403). `account` as for `document`. */
  admit(accountId: string, account?: FundingAccount): Promise<void>;
  /**
   * Before a node execution or a model turn, against the usage recorded so
   * far: undefined when it is funded; else why the work stops. `unpaidExtra`
   * is the extra-funded usage of the run or request not yet debited.
   */
  check(accountId: string, unpaidExtraMicroUsd: number): Promise<UsageFailure | undefined>;
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
    async check(accountId, unpaidExtraMicroUsd) {
      const { funding, windows } = await recent(accountId, false);
      const doc = quotaDocument(funding, windows, clock());
      if (doc.mode === 'blocked') {
        return { code: 'usage_window_exceeded', message: `A usage window of the plan is full; it resets in ${doc.retry_after_seconds} seconds.` };
      }
      if (doc.mode === 'extra' && doc.extra.wallet_micro_usd - unpaidExtraMicroUsd <= 0) {
        return { code: 'out_of_funds', message: 'A usage window of the plan is full and the wallet that pays for extra usage is empty; add funds.' };
      }
      return undefined;
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

/** The allowance 429 (with its quota document) as the creating endpoints document it; loaded only when the document is built. */
export const usageRefusals = () => import('./openapi/usage-responses.js').then(({ USAGE_REFUSALS }) => USAGE_REFUSALS);
