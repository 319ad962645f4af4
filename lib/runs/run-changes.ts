import type { AccountEvent } from '#events/account-events.js';
import { defaultTable, type TableRef } from '#platform/table/table.js';
import type { TransactItem } from '#platform/table/transactions.js';
import { type Settled, type Settlements, settlements, type Work } from '#settlement/index.js';
import { isTerminal, type Run, type RunEventData, type RunWrite } from './model.js';
import { runDebitId } from './run-money.js';
import { type RunsRepo, runsRepo } from './runs-repository.js';

/** What an end of a run moves besides the run's own items (settlement writes them). */
export interface RunEnding {
  at: Date;
  /** The run's usage cost, counted in the activity of the day it ends. */
  costMicroUsd: number;
  /** The account's `run.<status>` event, with the run as it is once ended (the webhooks deliver it). */
  event: AccountEvent;
  /** The slot of work in progress its creation took, given back by the end that frees it. */
  releasesSlot: boolean;
}

export interface RunChange extends RunWrite {
  /**
   * The usage cost the stored run has, when the `run` given to `change`
   * carries a newer usage already (a model turn ending the run): the cost
   * recorded is the rise from this one.
   */
  costBefore?: number;
  /** Present for the change that ends the run. */
  ends?: RunEnding;
  /** What is written instead when DynamoDB refuses the change for what it holds (an end that could not be stored as it is). */
  unrecordable?: RunChange;
  /** What follows the commit, with the run as changed (the end's notices, the machine handed on); not run for a refused change. */
  afterCommit?: (changed: Run) => Promise<void>;
}

/**
 * Runs as their use cases change them: the repository (one entity: the run,
 * its events, steps, queue entry) with every change and start going through
 * settlement (lib/settlement). A change that raises the run's usage cost (a
 * model turn recorded, machine time banked) records the rise in the
 * account's usage windows in the same transaction and adds its
 * extra-funded part to the run's `extra_micro_usd`: the run's own condition
 * (its `event_seq`) makes the cost counted exactly once, however often the
 * change is retried or its message redelivered. The change that ends the
 * run also counts its day, writes its account event, gives its slot back
 * and pays its one debit: the end and its payment together or neither.
 */
export function runs(table: TableRef = defaultTable(), settlement: Settlements = settlements(table)) {
  const repo = runsRepo(table);

  function work(run: Run, change: RunChange): Work<Run> {
    const cost = change.set.usage?.cost_micro_usd;
    const increase = cost === undefined ? 0 : Math.max(0, cost - (change.costBefore ?? run.usage.cost_micro_usd));
    const extraBefore = change.set.extra_micro_usd ?? run.extra_micro_usd ?? 0;
    const withExtra = (extraMicroUsd: number): RunWrite =>
      extraMicroUsd > 0 ? { ...change, set: { ...change.set, extra_micro_usd: extraBefore + extraMicroUsd } } : change;
    const ends = change.ends;
    const ending = change.set.status !== undefined && isTerminal(change.set.status);
    if (ending !== (ends !== undefined)) throw new Error(`a change of run ${run.id} ends it exactly when it says what its end moves`);
    const afterCommit = change.afterCommit;
    return {
      accountId: run.account_id,
      usageMicroUsd: increase,
      subject: ({ extraMicroUsd }) => ({ items: repo.changeItems(run, withExtra(extraMicroUsd)), result: repo.changed(run, withExtra(extraMicroUsd)) }),
      ...(ends
        ? {
            end: {
              at: ends.at,
              activity: { cost_micro_usd: ends.costMicroUsd },
              event: ends.event,
              releasesSlot: ends.releasesSlot,
              extraBeforeMicroUsd: extraBefore,
              debit: { id: runDebitId(run.id), description: `Extra usage of run ${run.id}`, metadata: { run_id: run.id } },
            },
          }
        : {}),
      ...(change.unrecordable
        ? { unrecordable: () => work(run, { afterCommit, ...change.unrecordable!, ...(change.afterSeq === undefined ? {} : { afterSeq: change.afterSeq }) }) }
        : {}),
      ...(afterCommit ? { afterCommit: (settled: Settled<Run>) => afterCommit(settled.result) } : {}),
    };
  }

  return {
    ...repo,

    /**
     * Applies a change (RunChange) with what moves with it; the run as
     * changed, or undefined when its own items were refused. The events of
     * a change of a running run follow the log's end, which its deltas may
     * have moved past `event_seq` (lib/runs/deltas.ts): one read of the
     * newest page finds it, unless the caller knows it (`afterSeq`).
     */
    async change(run: Run, change: RunChange): Promise<Run | undefined> {
      const afterSeq = change.afterSeq ?? (run.status === 'running' ? await repo.watermark(run) : undefined);
      const settled = await settlement.settle(work(run, afterSeq === undefined ? change : { ...change, afterSeq }));
      return settled.settled ? settled.result : undefined;
    },

    /**
     * Puts a new run with its first events and the items that place it,
     * counted in the activity of its creation day and, with a
     * `concurrencyLimit`, holding a slot of the account's work in progress
     * (429 when the account is at its limit). `refused` when one of the
     * run's own items was (its machine or chat moved first).
     */
    start(run: Run, events: RunEventData[], items: TransactItem[], concurrencyLimit?: number): Promise<'started' | 'refused'> {
      return settlement.start({
        accountId: run.account_id,
        subject: repo.createItems(run, events, items),
        at: run.created_at,
        activity: { runs: 1 },
        ...(concurrencyLimit === undefined ? {} : { concurrencyLimit }),
      });
    },
  };
}

export type Runs = ReturnType<typeof runs>;
export type { RunsRepo };
