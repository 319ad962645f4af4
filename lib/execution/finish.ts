import type { AccountEvent } from '#events/account-events.js';
import type { InteractionsService } from '#interactions/index.js';
import { METRIC } from '#platform/observability/metric-names.js';
import { countMetric } from '#platform/observability/metrics.js';
import { nameBasedUuid } from '#platform/uuid.js';
import type { WebhookNotices } from '#webhooks/index.js';
import { interactionIdFor } from './approval.js';
import { EventBuffer, emitNode, emitRequest, eventIdentity } from './emit.js';
import { type FailureInfo, isTerminalNode, NODE_OPEN, type NodeExecution, REQUEST_OPEN, type RequestEvent, type WorkflowRequest } from './model.js';
import type { EnqueueNodeTasks, NodeTask } from './node-queue.js';
import { reducedRequestView, requestView } from './views.js';
import { wakeParent } from './wake.js';
import type { WorkflowRequests } from './workflow-requests.js';

export interface FinishDeps {
  requests: WorkflowRequests;
  /** Cancels the question of a node stopped while waiting; null only where no node can be waiting (a request that never ran). */
  interactions: InteractionsService | null;
  /** Wakes the parent request's `workflow` node when a child request ends. */
  enqueue: EnqueueNodeTasks;
  /** The invocation's event buffer; without one the sweep's events are flushed here. */
  events?: EventBuffer;
  /** The outbound webhooks: whether the account takes the request's end as an event, and the notice after it is recorded. */
  webhooks: Pick<WebhookNotices, 'listening' | 'announce'>;
  /** Requests started in this invocation whose move to `in_progress` is deferred (executor.ts): their end carries `started_at`. */
  starts?: Map<string, { at: string }>;
}

/** Settles a node that never finished (request stopped or failed, or dead-lettered). */
export async function settleAs(deps: FinishDeps, node: NodeExecution, status: 'stopped' | 'failed', failure: FailureInfo | null): Promise<boolean> {
  const at = new Date().toISOString();
  const set = status === 'failed' ? { status, error: failure, failed_at: at } : { status, completed_at: at };
  if (!(await deps.requests.settleNode(node.workflow_request_id, node.node_id, NODE_OPEN, set, undefined, node.unwritten ? node : undefined))) return false;
  countMetric(METRIC.nodeExecutions, { status });
  // A question nobody can act on any more is cancelled with its node.
  if (node.status === 'waiting' && deps.interactions) await deps.interactions.resolve(interactionIdFor(node.id), 'cancelled', null);
  await emitNode(deps, { ...node, ...set });
  return true;
}

/**
 * Moves the request to a terminal state (once: conditional) and settles every
 * node still open as stopped, so nothing is left pending or in progress.
 */
export async function finishRequest(
  deps: FinishDeps,
  requestId: string,
  status: 'completed' | 'failed' | 'stopped',
  error: FailureInfo | null,
  /** Its nodes' fees left to the end, when read with every node settled (the outcome). */
  fees?: number,
) {
  if (deps.events) return finishRequestBuffered(deps, requestId, status, error, fees);
  // Called outside a worker (stop): batch the sweep's events all the same.
  const events = new EventBuffer();
  try {
    return await finishRequestBuffered({ ...deps, events }, requestId, status, error);
  } finally {
    await events.flush(deps.requests);
  }
}

async function finishRequestBuffered(
  deps: FinishDeps,
  requestId: string,
  status: 'completed' | 'failed' | 'stopped',
  error: FailureInfo | null,
  fees?: number,
) {
  // Open nodes are stopped before the request turns terminal, so a client
  // that sees the terminal request also sees no node still open. The sweep
  // runs again on every redelivery, so a crash half-way cannot strand one.
  if (status !== 'completed') {
    const nodes = await deps.requests.listNodes(requestId);
    // Executions a redrive made before it moved the request back (redrive.ts) are that redrive's, not this end's: a stop of the ended request leaves them.
    const redriven = nodes.some((node) => node.redrive !== undefined) ? ((await deps.requests.get(requestId))?.redrive_count ?? 0) : 0;
    for (const node of nodes) {
      if (isTerminalNode(node.status) || (node.redrive ?? 0) > redriven) continue;
      // Stopping a request stops its children too.
      if (node.child_request_id) await finishRequest(deps, node.child_request_id, 'stopped', null);
      await settleAs(deps, node, 'stopped', null);
    }
  }
  const started = deps.starts?.get(requestId);
  deps.starts?.delete(requestId);
  // The end is an event (`workflow_request.<status>`) written with it when an endpoint of the account takes it.
  let event: AccountEvent | undefined;
  const eventOf = async (ended: WorkflowRequest, reduced = false) => {
    const { id, type } = endEvent(ended);
    event = (await deps.webhooks.listening(ended.account_id, type)) ? { id, type, data: (reduced ? reducedRequestView : requestView)(ended) } : undefined;
    return event;
  };
  return deps.requests.endRequest(
    requestId,
    REQUEST_OPEN,
    {
      status,
      completed_at: new Date().toISOString(),
      ...(started ? { started_at: started.at } : {}),
      ...(error ? { error } : {}),
    },
    {
      ...(fees === undefined ? {} : { knownFees: fees }),
      eventOf,
      // The terminal request event goes last: listeners close on it.
      afterCommit: async (finished) => {
        countMetric(METRIC.workflowRequestsEnded, { status: finished.status });
        // Its created_at is the end's time, so the same notice can be sent again by whoever finds the request ended.
        if (event && finished.completed_at) await deps.webhooks.announce(finished.account_id, { ...endEvent(finished), created_at: finished.completed_at });
        await emitRequest(deps, finished);
        await wakeParent({ enqueue: deps.enqueue }, finished);
      },
    },
  );
}

/**
 * A task whose node had completed or failed before it found its request
 * ended is a redelivery, maybe of the very task whose invocation ended the request
 * and died between the end's transaction and its notice: the notice goes
 * again (a dispatcher handed it twice creates each delivery once). The end
 * recorded an event only if an endpoint of the account took it then.
 */
export async function announceEnded(deps: Pick<FinishDeps, 'webhooks'>, request: WorkflowRequest): Promise<void> {
  if (!request.completed_at) return;
  const event = endEvent(request);
  if (!(await deps.webhooks.listening(request.account_id, event.type))) return;
  await deps.webhooks.announce(request.account_id, { ...event, created_at: request.completed_at });
}

/** A request's end event: `workflow_request.<status>`, its id the same on every retry (the deliveries' `webhook-id`), another for each end a redrive gives it. */
const endEvent = (request: Pick<WorkflowRequest, 'id' | 'status' | 'redrive_count'>) => ({
  id: nameBasedUuid(`workflow_request:${request.id}:${request.status}${request.redrive_count ? `:redrive:${request.redrive_count}` : ''}`),
  type: `workflow_request.${request.status}`,
});

/** A node task that exhausted its deliveries: the node and its request fail instead of hanging. */
export async function failDeadLetteredTask(task: NodeTask, deps: FinishDeps): Promise<void> {
  // The request's events handed on with the task (emit.ts, handOver) had no other way to the log: logged first, once.
  if (task.events && task.events.data.length > 0) {
    await deps.requests.appendEvents(task.request_id, task.events.data as Array<RequestEvent['data']>, task.seq, { identity: eventIdentity });
  }
  // Listed, not read by key: a node whose ready task never got as far as its claim has no item yet.
  const node = (await deps.requests.listNodes(task.request_id)).find((n) => n.node_id === task.node_id);
  if (!node || isTerminalNode(node.status)) return;
  const failure = { code: 'delivery_exhausted', message: `Node ${node.node_id} could not be processed after repeated deliveries.` };
  await settleAs(deps, node, 'failed', failure);
  await finishRequest(deps, task.request_id, 'failed', failure);
}
