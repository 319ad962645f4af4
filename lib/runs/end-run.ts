import type { InteractionsService } from '#interactions/index.js';
import { machineOccupancy } from '#machines/index.js';
import { UnavailableError } from '#platform/errors.js';
import { METRIC } from '#platform/observability/metric-names.js';
import { countMetric } from '#platform/observability/metrics.js';
import type { AnnounceEvent } from '#webhooks/index.js';
import { type AdvanceDeps, advanceMachine } from './machine-queue.js';
import { isTerminal, type Run, type RunEventData, type RunFailure, type RunStatus } from './model.js';
import type { RunChange, Runs } from './run-changes.js';
import { type NotifyRunEnded, reducedRunEndedEvent, runEndedEvent } from './run-ended.js';
import { leaveRunning } from './usage.js';

export interface EndDeps extends AdvanceDeps {
  runs: AdvanceDeps['runs'] & Pick<Runs, 'change'>;
  interactions: Pick<InteractionsService, 'resolve'>;
  /** Tells the features that follow runs that this one ended (lib/runs/run-ended.ts). */
  runEnded: NotifyRunEnded;
  /** Tells the outbound webhooks of the `run.<status>` event its end recorded (lib/webhooks/index.ts). */
  announce: AnnounceEvent;
}

export interface RunEnd {
  status: Extract<RunStatus, 'completed' | 'failed' | 'cancelled'>;
  failure?: RunFailure;
  output?: string;
  leaseOwner?: string;
  /** What became of the interaction it waited for, if it did (default `cancelled`). */
  waitStatus?: 'cancelled' | 'expired';
}

/** What the caller's own change writes with the end (a model turn's step, events and usage). */
export interface EndExtra {
  events?: RunEventData[];
  items?: RunChange['items'];
  set?: RunChange['set'];
  costBefore?: number;
  /** Where the events go, when the caller knows the log's end (a model turn's stream, lib/runs/deltas.ts). */
  afterSeq?: number;
}

/** Changes in a row that lose a race before the caller is told to retry (each loser read a newer run). */
const ATTEMPTS = 10;

/**
 * Ends a run that holds its machine or waits for it, as one change settled
 * with what its end moves (./run-changes.ts): the status, its usage with
 * the machine time banked, the end of its wait (an `interaction` event when
 * it waited for one), and the machine released or its queue entry left; its
 * day's cost, account event, slot and debit. Then, once it committed, the interaction it
 * waited for is cancelled and the machine is handed on; a caller that dies
 * before that leaves work for the run's next message (a worker finding an
 * ended run does both again), or, for a queued run, none at all.
 * Undefined when the run was not in `from` any more (it moved first).
 */
export async function endRun(
  deps: EndDeps,
  run: Run,
  end: RunEnd,
  from: readonly RunStatus[],
  extra: EndExtra = {},
  now: Date = new Date(),
): Promise<Run | undefined> {
  if (!from.includes(run.status)) return undefined;
  return deps.runs.change(run, {
    ...endChange(deps, run, end, extra, now),
    // Refused for what it holds (a value nested too deep for DynamoDB, an item too large): the same end would be
    // refused on every try, and a run that cannot end keeps its machine, its slot and a worker calling its model.
    unrecordable: endChange(deps, run, unrecordableEnd(end), { set: extra.set, costBefore: extra.costBefore, afterSeq: extra.afterSeq }, now, true),
    afterCommit: async (ended) => {
      countMetric(METRIC.runsEnded, { status: ended.status });
      await afterEnd(deps, ended, run.wait?.interaction_id);
    },
  });
}

/**
 * An end DynamoDB refused for what it holds, as it is written instead:
 * failed with `internal_error`, without the output, its wait ended as the
 * end said.
 */
const unrecordableEnd = (end: RunEnd): RunEnd => ({
  status: 'failed',
  failure: {
    code: 'internal_error',
    message: `The run’s end (${end.status}) could not be recorded: its input, metadata or output is nested deeper or larger than can be stored. It failed instead, without its output.`,
    retryable: false,
  },
  ...(end.leaseOwner === undefined ? {} : { leaseOwner: end.leaseOwner }),
  ...(end.waitStatus === undefined ? {} : { waitStatus: end.waitStatus }),
});

/**
 * The change of `endRun`. `reduced`: the account event carries the run
 * without what its caller sent (reducedRunEndedEvent), for an end whose
 * whole view could not be stored.
 */
function endChange(deps: EndDeps, run: Run, end: RunEnd, extra: EndExtra, now: Date, reduced = false): RunChange {
  const occupancy = machineOccupancy(deps.tableName);
  const holding = run.status !== 'queued';
  const waitEvents: RunEventData[] = run.wait
    ? [{ type: 'interaction', data: { interaction_id: run.wait.interaction_id, type: run.wait.type, status: end.waitStatus ?? 'cancelled' } }]
    : [];
  const left = holding ? leaveRunning(run, now) : { queue_sk: null };
  const cost = 'usage' in left ? left.usage.cost_micro_usd : run.usage.cost_micro_usd;
  const set = {
    ...extra.set,
    status: end.status,
    completed_at: now.toISOString(),
    failure: end.failure ?? null,
    ...(end.output === undefined ? {} : { output: end.output }),
    ...left,
    lease_owner: null,
  };
  const ended = { ...run, ...set } as Run;
  return {
    set,
    from: [run.status],
    ...(extra.costBefore === undefined ? {} : { costBefore: extra.costBefore }),
    ...(extra.afterSeq === undefined ? {} : { afterSeq: extra.afterSeq }),
    ...(end.leaseOwner === undefined ? {} : { leaseOwner: end.leaseOwner }),
    // A failed run's last run.status event carries its failure, as the run and its run.failed event do.
    events: [...(extra.events ?? []), ...waitEvents, { type: 'run.status', data: { status: end.status, ...(end.failure ? { failure: end.failure } : {}) } }],
    items: [
      ...(extra.items ?? []),
      ...(holding
        ? [{ Update: occupancy.release(run.account_id, run.machine_id, run.id) }]
        : [deps.runs.queueEntryDelete(run.machine_id, run.queue_sk!), { Update: occupancy.leave(run.account_id, run.machine_id) }]),
    ],
    ends: {
      at: now,
      // The run's usage cost counts in the activity of the day it ends, once: with the end, which happens once.
      costMicroUsd: cost,
      event: reduced ? reducedRunEndedEvent(ended) : runEndedEvent(ended),
      releasesSlot: run.concurrency_slot === true,
    },
  };
}

/**
 * What follows an end outside its transaction (which paid the run's debit:
 * lib/settlement); safe to repeat. The machine moves on first (the next
 * run waits for it); the notice of the end is last, so a failure before it
 * repeats all of this (a run task's redelivery) and the notice is still
 * sent.
 */
export async function afterEnd(deps: EndDeps, run: Run, waitedFor: string | undefined): Promise<void> {
  if (waitedFor) await deps.interactions.resolve(waitedFor, 'cancelled', null);
  await advanceMachine(deps, run.account_id, run.machine_id);
  await deps.runEnded(run);
  const event = runEndedEvent(run);
  if (run.completed_at) await deps.announce(run.account_id, { id: event.id, type: event.type, created_at: run.completed_at });
}

/**
 * POST /v2/runs/{id}/cancel: a queued run leaves its machine's queue; a
 * running or waiting run ends at once (its worker sees it and aborts its
 * calls), its interaction is cancelled and its machine moves on. An ended
 * run comes back unchanged; a cancelled one has what follows its end done
 * again (afterEnd: safe to repeat).
 */
export async function cancelRun(deps: EndDeps, run: Run): Promise<Run> {
  let current: Run | undefined = run;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (!current) return run;
    if (isTerminal(current.status)) {
      // A cancel again: the first may have died after its end's transaction, before what follows it (a cancelled run may have no message left to repeat it).
      if (current.status === 'cancelled') await afterEnd(deps, current, current.wait?.interaction_id);
      return current;
    }
    const cancelled = await endRun(deps, current, { status: 'cancelled' }, ['queued', 'running', 'waiting']);
    if (cancelled) return cancelled;
    current = await deps.runs.get(run.id);
  }
  throw new UnavailableError('The run is changing too fast to cancel now; retry.');
}
