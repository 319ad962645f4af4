import { transactionIdFor } from '#billing/index.js';
import type { AccountEvent } from '#events/account-events.js';
import { nowIso } from '#platform/table/table.js';
import type { Settled, Settlements, Work } from '#settlement/index.js';
import { extraSinceRedrive, feesSinceRedrive, type RequestStatus, type WorkflowRequest } from './model.js';
import type { WorkflowRequestsRepo } from './workflow-requests-repository.js';

/** The id of a workflow request's one debit (one for each end: a redriven request's later ends have their own). */
export const requestDebitId = (requestId: string, redrive = 0): string =>
  transactionIdFor(redrive > 0 ? `debit:workflow_request:${requestId}:redrive:${redrive}` : `debit:workflow_request:${requestId}`);

/** The failure of a request whose end DynamoDB refused for what it holds, written instead of that end. */
const unrecordableEnd = (status: RequestStatus) => ({
  code: 'internal_error',
  message: `The request’s end (${status}) could not be recorded: its payload or metadata is nested deeper or larger than can be stored. It failed instead.`,
});

/** The event that tells of an end, asked with the request as it ends; `reduced`: without what its caller sent. */
export type EndEventOf = (ended: WorkflowRequest, reduced?: boolean) => Promise<AccountEvent | undefined>;

export interface EndOptions {
  /** The fees its nodes left to the end, when the caller read them with every node settled (outcome). */
  knownFees?: number;
  /** The event written with the end, for the webhooks. */
  eventOf?: EndEventOf;
  /** What follows the commit, with the request as ended (its notices, its stream, its parent woken); not run when nothing was ended. */
  afterCommit?: (ended: WorkflowRequest) => Promise<void>;
}

export interface EndRequestDeps {
  repo: Pick<WorkflowRequestsRepo, 'get' | 'unrecordedFees' | 'endUpdate'>;
  settlement: Pick<Settlements, 'settle'>;
}

/**
 * Moves the request to a terminal state, once (`from` guards it), settled
 * (lib/settlement) with everything its end moves: the flat fees its nodes
 * left to the end recorded into the usage windows (every node is settled
 * by now: finish.ts stops the open ones first), its node executions and
 * cost counted in the activity of the day it ends (once: with the end,
 * which happens once; counting each node as it settles would turn the
 * engine's most frequent write into a transaction), its account event, its
 * slot of work in progress given back, and its extra-funded usage paid by
 * one debit. An end DynamoDB refuses for what it holds (its event's
 * request view nested too deep or too large) is written failed
 * (`internal_error`) with the event reduced. Undefined when the request
 * was not in `from`.
 */
export async function endRequest(
  deps: EndRequestDeps,
  requestId: string,
  from: readonly RequestStatus[],
  set: Partial<WorkflowRequest> & { status: RequestStatus },
  options: EndOptions = {},
): Promise<WorkflowRequest | undefined> {
  const current = await deps.repo.get(requestId);
  if (!current || !from.includes(current.status)) return undefined;
  const ended = typeof set.completed_at === 'string' ? set.completed_at : nowIso();
  // A request that never showed `in_progress` (its start deferred, executor.ts) starts no later than it ends.
  const applied = current.started_at || set.started_at ? set : { ...set, started_at: ended };
  // A redriven request's kept nodes still carry the fees its earlier end recorded (redrive_base).
  const fees = feesSinceRedrive(current, options.knownFees ?? (await deps.repo.unrecordedFees(requestId)));
  const end = { deps, current, from, fees, at: new Date(ended), options };
  const settled = await deps.settlement.settle(await requestEnd(end, applied, false));
  return settled.settled ? settled.result : undefined;
}

interface EndOf {
  deps: EndRequestDeps;
  current: WorkflowRequest;
  from: readonly RequestStatus[];
  fees: number;
  at: Date;
  options: EndOptions;
}

/** The settlement of the end: `applied` written on the request; `reduced` for the end written failed instead. */
async function requestEnd(end: EndOf, applied: Partial<WorkflowRequest> & { status: RequestStatus }, reduced: boolean): Promise<Work<WorkflowRequest>> {
  const { current, fees } = end;
  const { concurrency_slot: _slot, ...rest } = current;
  const cost = (current.cost_micro_usd ?? 0) + fees;
  const base = current.redrive_base;
  const ending = { ...rest, ...applied, ...(fees > 0 ? { cost_micro_usd: cost } : {}) } as WorkflowRequest;
  const { eventOf, afterCommit } = end.options;
  const event = eventOf ? await eventOf(ending, reduced) : undefined;
  return {
    accountId: current.account_id,
    usageMicroUsd: fees,
    subject: ({ extraMicroUsd }) => ({
      items: [end.deps.repo.endUpdate(current, end.from, applied, fees, extraMicroUsd)],
      result: fees > 0 ? { ...ending, extra_micro_usd: (current.extra_micro_usd ?? 0) + extraMicroUsd } : ending,
    }),
    end: {
      at: end.at,
      // After a redrive, only what ran again: what the earlier ends counted and debited is left out (redrive_base).
      activity: { nodes: base ? base.node_count : current.node_count, cost_micro_usd: cost - (base?.cost_micro_usd ?? 0) },
      ...(event ? { event } : {}),
      releasesSlot: current.concurrency_slot === true,
      extraBeforeMicroUsd: extraSinceRedrive(current, current.extra_micro_usd ?? 0),
      debit: {
        id: requestDebitId(current.id, current.redrive_count ?? 0),
        description: `Extra usage of workflow request ${current.id}`,
        metadata: { workflow_request_id: current.id, ...(current.redrive_count ? { redrive_count: current.redrive_count } : {}) },
      },
    },
    ...(reduced ? {} : { unrecordable: () => requestEnd(end, { ...applied, status: 'failed', error: unrecordableEnd(applied.status) }, true) }),
    ...(afterCommit ? { afterCommit: (settled: Settled<WorkflowRequest>) => afterCommit(settled.result) } : {}),
  };
}
