import { billing, transactionIdFor } from '#billing/index.js';
import type { TableRef } from '#platform/table/table.js';
import { type UsageFailure, type UsageMeter, usageMeter } from '#usage/index.js';
import type { Run } from './model.js';

/**
 * The money of runs (decisions.md, Money): before each model turn, the
 * check against the usage recorded so far (a full window with nothing to
 * fund it, or extra usage that ran the wallet dry, ends the run failed);
 * when a run has ended, one debit of its extra-funded part. The costs
 * themselves are recorded by the run's own changes (runs-repository.ts).
 */
export interface RunMoney {
  /** Why the run may not take another model turn now, if it may not. */
  check(run: Pick<Run, 'account_id' | 'extra_micro_usd'>): Promise<UsageFailure | undefined>;
  /** Debits the extra-funded usage of an ended run, once (the id comes from the run's): safe to repeat. */
  settle(run: Pick<Run, 'id' | 'account_id' | 'extra_micro_usd'>): Promise<void>;
}

/** The id of a run's one debit. */
export const runDebitId = (runId: string): string => transactionIdFor(`debit:run:${runId}`);

export function runMoney(table?: TableRef, meter: Pick<UsageMeter, 'check'> = usageMeter(table)): RunMoney {
  const wallet = billing(table);
  return {
    // The run's extra not yet debited is all of it: the debit comes at its end.
    check: (run) => meter.check(run.account_id, run.extra_micro_usd ?? 0),
    async settle(run) {
      const amount = run.extra_micro_usd ?? 0;
      if (amount <= 0) return;
      await wallet.debit({
        id: runDebitId(run.id),
        accountId: run.account_id,
        amountMicroUsd: amount,
        description: `Extra usage of run ${run.id}`,
        metadata: { run_id: run.id },
      });
    },
  };
}
