import { transactionIdFor } from '#billing/index.js';
import type { TableRef } from '#platform/table/table.js';
import { type UsageFailure, type UsageMeter, usageMeter } from '#usage/index.js';
import type { Run } from './model.js';

/**
 * The money of runs (decisions.md, Money): before each model turn, the
 * check against the usage recorded so far (a full window with nothing to
 * fund it, or extra usage that ran the wallet dry, ends the run failed).
 * The costs themselves are recorded by the run's own changes, and the one
 * debit of its extra-funded part by the change that ends it
 * (runs-repository.ts).
 */
export interface RunMoney {
  /** Why the run may not take another model turn now, if it may not. */
  check(run: Pick<Run, 'account_id' | 'extra_micro_usd'>): Promise<UsageFailure | undefined>;
}

/** The id of a run's one debit. */
export const runDebitId = (runId: string): string => transactionIdFor(`debit:run:${runId}`);

export function runMoney(table?: TableRef, meter: Pick<UsageMeter, 'check'> = usageMeter(table)): RunMoney {
  return {
    // The run's extra not yet debited is all of it: the debit comes with its end. Nothing is pending: a run records every cost as it settles.
    check: (run) => meter.check(run.account_id, { unpaidExtraMicroUsd: run.extra_micro_usd ?? 0 }),
  };
}
