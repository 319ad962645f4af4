import { Failure } from '#platform/failure.js';
import type { WorkflowNode } from '#workflows/index.js';

type RetryPolicy = NonNullable<WorkflowNode['retry']>;

/**
 * Whether a failed attempt is tried again: the node has a policy, attempts
 * remain, the failure is retryable (an expression error is not: it would
 * fail the same way), and its code is in `retry_on` when that is given.
 */
export function shouldRetry(policy: RetryPolicy | undefined, attemptsSoFar: number, error: unknown): boolean {
  if (!policy || attemptsSoFar >= policy.max_attempts) return false;
  const code = error instanceof Failure ? error.code : 'internal_error';
  if (error instanceof Failure && !error.retryable) return false;
  return !policy.retry_on || policy.retry_on.includes(code);
}

/** Exponential backoff, capped, with "equal jitter": half fixed, half random. */
export function retryDelayMs(policy: RetryPolicy, attemptsSoFar: number, random: () => number = Math.random): number {
  const base = policy.backoff_ms ?? 1000;
  const multiplier = policy.backoff_multiplier ?? 2;
  const cap = policy.max_backoff_ms ?? 60_000;
  const delay = Math.min(cap, base * multiplier ** Math.max(0, attemptsSoFar - 1));
  return policy.jitter === false ? delay : delay / 2 + random() * (delay / 2);
}
