import { DomainError } from '#platform/errors.js';
import type { QuotaDocument } from './model.js';

/**
 * A plan window is full and nothing else funds the call (specification,
 * Allowance 429): 429 whose body carries the whole quota document (as
 * members of the problem document), `Retry-After` its `retry_after_seconds`.
 */
export class UsageWindowExceededError extends DomainError {
  constructor(readonly document: QuotaDocument) {
    const wait = document.retry_after_seconds ?? 1;
    super('too_many_requests', 'usage_window_exceeded', `A usage window of the plan is full; it resets in ${wait} seconds.`, {
      retryAfterSeconds: wait,
      extensions: { ...document },
    });
  }
}

/** Extra usage would fund the call, but the wallet is below the minimum balance (decisions.md, At creation). */
export class InsufficientBalanceError extends DomainError {
  constructor(balanceMicroUsd: number, minimumMicroUsd: number) {
    super(
      'forbidden',
      'insufficient_balance',
      `A usage window is full and extra usage pays for this call, but the balance (${balanceMicroUsd / 1_000_000} USD) is below the minimum of ${minimumMicroUsd / 1_000_000} USD; add funds or wait for the window to reset.`,
    );
  }
}
