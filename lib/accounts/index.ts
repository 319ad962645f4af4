/**
 * What other features use of accounts: the ceiling on work in progress
 * (decisions.md, Rate limits), as TransactWriteItems entries that ride on
 * the transactions creating and ending a workflow request or a run, and the
 * limits in force for an account (plan and operator overrides), and the
 * request rate, which bearer authentication enforces and a hook's signed
 * events count against too.
 */

import type { TableRef } from '#platform/table/table.js';
import { accountsRepo } from './accounts-repository.js';

export { type LimitOverrides, type LimitsInForce, limitsInForce } from '#platform/config/plans.js';
export {
  acquireSlot,
  CONCURRENCY_RETRY_AFTER_SECONDS,
  concurrencyRefusal,
  releaseSlot,
} from './concurrency.js';
export type { Account } from './model.js';
export { type RateLimiter, requestRateLimiter } from './rate-limiter.js';

/**
 * An account as metering reads it (lib/usage): its plan and overrides (the
 * allowances in force), whether extra usage is on, its balance. Consistent:
 * an operator's change applies on the next check.
 */
export function accountLookup(table?: TableRef) {
  const repo = accountsRepo(table);
  return { get: (accountId: string) => repo.get(accountId) };
}
