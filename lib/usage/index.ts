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
import { InsufficientBalanceError, UsageWindowExceededError } from './errors.js';
import { type FundingAccount, MIN_BALANCE_MICRO_USD, type QuotaDocument, quotaDocument } from './model.js';
import { recordUsageItem, type TransactItem, usageRepo } from './usage-repository.js';

export { InsufficientBalanceError, UsageWindowExceededError } from './errors.js';
export { MIN_BALANCE_MICRO_USD, type Mode, type QuotaDocument, WINDOW_SECONDS } from './model.js';

/** Why work already going stops (decisions.md, During a run or request): both final, neither an HTTP error. */
export interface UsageFailure {
  code: 'usage_window_exceeded' | 'out_of_funds';
  message: string;
}

export interface UsageMeter {
  /** The caller's quota document now (GET /v2/usage, the body of the 429). */
  document(accountId: string): Promise<QuotaDocument>;
  /** At creation: resolves when the call is funded; throws UsageWindowExceededError (429) or InsufficientBalanceError (403). */
  admit(accountId: string): Promise<void>;
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
   * (the mode that funds the call), else none. Read fresh each time: the
   * Update holds to what was read, so a transaction refused by it (a window
   * opened meanwhile) asks again.
   */
  record(accountId: string, costMicroUsd: number, now?: Date): Promise<{ item: TransactItem; extraMicroUsd: number }>;
}

export function usageMeter(table: TableRef = defaultTable(), clock: () => number = Date.now): UsageMeter {
  const repo = usageRepo(table);
  const accounts = accountLookup(table);

  async function account(accountId: string): Promise<FundingAccount> {
    const found = await accounts.get(accountId);
    if (!found) throw new NotFoundError(`No account ${accountId}.`);
    return found;
  }

  async function document(accountId: string): Promise<QuotaDocument> {
    const [funding, windows] = await Promise.all([
      account(accountId),
      // A failed read of the windows is shown as `unknown`, not a 500 (specification, quota document).
      repo.read(accountId).catch((error: unknown) => {
        logger().warn('usage windows unreadable', { accountId, error });
        return undefined;
      }),
    ]);
    return quotaDocument(funding, windows, clock());
  }

  return {
    document,
    async admit(accountId) {
      const doc = await document(accountId);
      if (doc.mode === 'blocked') throw new UsageWindowExceededError(doc);
      if (doc.mode === 'extra' && doc.extra.wallet_micro_usd < MIN_BALANCE_MICRO_USD)
        throw new InsufficientBalanceError(doc.extra.wallet_micro_usd, MIN_BALANCE_MICRO_USD);
    },
    async check(accountId, unpaidExtraMicroUsd) {
      const doc = await document(accountId);
      if (doc.mode === 'blocked') {
        return { code: 'usage_window_exceeded', message: `A usage window of the plan is full; it resets in ${doc.retry_after_seconds} seconds.` };
      }
      if (doc.mode === 'extra' && doc.extra.wallet_micro_usd - unpaidExtraMicroUsd <= 0) {
        return { code: 'out_of_funds', message: 'A usage window of the plan is full and the wallet that pays for extra usage is empty; add funds.' };
      }
      return undefined;
    },
    async record(accountId, costMicroUsd, now = new Date(clock())) {
      const [funding, seen] = await Promise.all([account(accountId), repo.read(accountId)]);
      const mode = quotaDocument(funding, seen, now.getTime()).mode;
      const extraMicroUsd = mode === 'extra' ? costMicroUsd : 0;
      return { item: recordUsageItem(repo.tableName, accountId, seen, costMicroUsd, extraMicroUsd, now.getTime()), extraMicroUsd };
    },
  };
}

/** The allowance 429 (with its quota document) as the creating endpoints document it; loaded only when the document is built. */
export const usageRefusals = () => import('./openapi/usage-responses.js').then(({ USAGE_REFUSALS }) => USAGE_REFUSALS);
