import { logger } from '#platform/observability/logger.js';
import { nameBasedUuid } from '#platform/uuid.js';
import type { UsageMeter } from '#usage/index.js';
import type { WebhookNotices } from '#webhooks/index.js';
import { RequestNotRedrivableError } from './errors.js';
import { finishRequest } from './finish.js';
import { type Graph, graphOf } from './graph.js';
import { type NodeExecution, type RedriveBase, type RequestEvent, type RequestStatus, redriveFields, type WorkflowRequest } from './model.js';
import type { EnqueueNodeTasks, NodeTask } from './node-queue.js';
import type { StartDeps } from './start.js';
import { nodeEventView, requestEventView } from './views.js';
import type { WorkflowRequests } from './workflow-requests.js';

/**
 * Redrive (decisions.md, Redrive and schedules): a `failed` or `stopped`
 * request runs again from where it ended. Its `completed` and `skipped`
 * nodes keep their executions; every other node gets a new execution (a new
 * id, its attempts counting on), the one it replaces kept for the history.
 * The steps, each safe to repeat and to race:
 * 1. the replaced executions kept, then each node replaced on condition that
 *    it is still the execution read (a redrive retried or racing finds them
 *    replaced, by the same deterministic ids, and goes on);
 * 2. the request moved back to `in_progress` in one transaction with its slot
 *    of work in progress (lib/settlement), on condition that it is still
 *    ended after as many redrives as read: of two redrives one moves it, the
 *    other is refused. Until then the new executions are not run by anyone
 *    (run-node.ts, finish.ts leave executions of a redrive to come);
 * 3. its events logged (the request, then the new executions), and the
 *    engine set going: a task for each entry node that runs again, and one
 *    for each kept node with a child that runs again, whose propagation the
 *    engine replays (propagate.ts): children made ready as they were the
 *    first time, nothing run again that completed.
 */

export interface RedriveDeps {
  requests: WorkflowRequests;
  versions: StartDeps['versions'];
  enqueue: EnqueueNodeTasks;
  /** A redrive that cannot be queued ends the request again, with its notice (finish.ts). */
  webhooks: Pick<WebhookNotices, 'listening' | 'announce'>;
}

const REDRIVABLE: readonly RequestStatus[] = ['failed', 'stopped'];
export const isRedrivable = (status: RequestStatus): boolean => REDRIVABLE.includes(status);

/** A node whose execution a redrive keeps. */
const keeps = (node: Pick<NodeExecution, 'status'>): boolean => node.status === 'completed' || node.status === 'skipped';

/** The id of the execution redrive number `redrive` makes of a node: the same whoever makes it first. */
export const redrivenExecutionId = (requestId: string, nodeId: string, redrive: number): string => nameBasedUuid(`${requestId}/${nodeId}/redrive/${redrive}`);

/**
 * The execution a redrive makes of a node that runs again: `pending` for an
 * entry node, else `blocked` with the fan-in marks its kept parents left
 * (only settled parents mark, and those are kept); its attempts go on from
 * the earlier ones; what it used and its child request are the earlier
 * execution's (a `workflow` node redrives that child: child-workflow.ts).
 */
export function redrivenExecution(request: Pick<WorkflowRequest, 'id'>, graph: Graph, node: NodeExecution, redrive: number, at: string): NodeExecution {
  const { usage: _u, unrecorded_micro_usd: _f, lease_expires_at: _l, child_request_id, child_redrive: _c, unwritten: _w, ...rest } = node;
  const previousChild = child_request_id ?? node.previous_child_request_id;
  return {
    ...rest,
    id: redrivenExecutionId(request.id, node.node_id, redrive),
    status: (graph.parents.get(node.node_id)?.length ?? 0) === 0 ? 'pending' : 'blocked',
    input_data: null,
    output_data: null,
    error: null,
    created_at: at,
    started_at: null,
    completed_at: null,
    failed_at: null,
    redrive,
    attempts_before: node.attempt_count,
    ...(previousChild ? { previous_child_request_id: previousChild } : {}),
  };
}

/**
 * Redrives the request (steps above) and answers it as it now stands,
 * `in_progress`. `limits`: the account's ceiling of work in progress, for a
 * root request, which takes a slot again (429 `rate_limited` past it); a
 * child request (redriven by its parent's `workflow` node) takes none.
 * 409 `request_not_redrivable` unless it is `failed` or `stopped`, or when
 * another redrive moved it first.
 */
export async function redriveRequest(deps: RedriveDeps, request: WorkflowRequest, limits?: { concurrency: number }): Promise<WorkflowRequest> {
  if (!isRedrivable(request.status)) throw new RequestNotRedrivableError(request.id, `it is ${request.status}; only a failed or stopped request runs again.`);
  const version = await deps.versions.getVersion(request.account_id, request.workflow_version_id);
  if (!version) throw new RequestNotRedrivableError(request.id, `its workflow version ${request.workflow_version_id} is gone.`);
  const graph = graphOf(version.id, version.definition);
  const redrive = (request.redrive_count ?? 0) + 1;
  const at = new Date().toISOString();
  const nodes = await deps.requests.listNodes(request.id);
  const kept = nodes.filter(keeps);
  const again = nodes.filter((node) => !keeps(node));

  // 1. Executions an earlier try of this redrive replaced already are left as they are.
  const replaced = again.filter((node) => node.redrive !== redrive);
  await deps.requests.keepRedriven(
    request.id,
    redrive,
    replaced.filter((node) => !node.unwritten),
  );
  const fresh = new Map<string, NodeExecution>();
  for (const node of again) {
    const next = node.redrive === redrive ? node : redrivenExecution(request, graph, node, redrive, at);
    // Refused: a redrive racing this one replaced it first, with the same execution.
    if (next !== node) await deps.requests.replaceNode(request.id, node, next);
    fresh.set(node.node_id, next);
  }

  // 2. Moved back, once.
  const base: RedriveBase = {
    cost_micro_usd: request.cost_micro_usd ?? 0,
    extra_micro_usd: request.extra_micro_usd ?? 0,
    fees_micro_usd: kept.reduce((sum, node) => sum + (node.unrecorded_micro_usd ?? 0), 0),
    node_count: again.length,
  };
  const root = request.parent_workflow_request_id === request.id;
  if (!(await deps.requests.startRedrive(request, redrive, base, at, root ? limits?.concurrency : undefined))) {
    const current = await deps.requests.get(request.id);
    throw new RequestNotRedrivableError(
      request.id,
      `it was changed meanwhile (now ${current?.status ?? 'gone'}, redriven ${current?.redrive_count ?? 0} times).`,
    );
  }
  const moved: WorkflowRequest = { ...request, ...redriveFields(request, redrive, base, at) };

  // 3. Told, then set going. The events only tell: a failure to log them loses no state.
  const events: Array<RequestEvent['data']> = [
    { workflow_request: requestEventView(moved) },
    ...again.map((node) => ({ node_execution: nodeEventView(fresh.get(node.node_id)!) })),
  ];
  try {
    await deps.requests.appendEvents(request.id, events);
  } catch (error) {
    logger().error('the events of a redrive could not be logged', { workflow_request_id: request.id, error: error as Error });
  }
  try {
    await deps.enqueue(redriveTasks(moved, graph, kept, again));
  } catch (error) {
    // Never leave a request in progress with nothing queued to run it (as start.ts).
    await finishRequest({ ...deps, interactions: null }, request.id, 'failed', { code: 'internal_error', message: 'The redrive could not be queued.' });
    throw error;
  }
  return moved;
}

/**
 * What sets a redriven request going: its entry nodes that run again (as
 * at its start), and each kept node with a child that runs again, whose
 * settled state the engine propagates once more (a task that names no type
 * and is not `ready` is read, and a settled node's propagation is replayed:
 * run-node.ts). With nothing to run again (a request stopped after its last
 * node settled), its entry nodes' propagation finds every node settled and
 * ends it.
 */
export function redriveTasks(request: WorkflowRequest, graph: Graph, kept: readonly NodeExecution[], again: readonly NodeExecution[]): NodeTask[] {
  const keptIds = new Set(kept.map((node) => node.node_id));
  const tasks: NodeTask[] = [];
  const replayed = new Set<string>();
  for (const node of again) {
    const parents = graph.parents.get(node.node_id) ?? [];
    if (parents.length === 0) tasks.push({ request_id: request.id, node_id: node.node_id, node_type: node.node_type });
    for (const parent of parents) if (keptIds.has(parent)) replayed.add(parent);
  }
  if (again.length === 0) for (const entry of request.entry_node_ids) replayed.add(entry);
  for (const nodeId of replayed) tasks.push({ request_id: request.id, node_id: nodeId });
  return tasks;
}

/**
 * `POST /v1/workflow-requests/{id}/redrive` for its caller: a request that
 * is not `failed` or `stopped` is refused first (409), and so is a child
 * request (its parent's `workflow` node redrives it); then the checks a
 * request's creation makes: the account's usage windows and funding (429,
 * 403), and its slot of work in progress (`limits`, 429).
 */
export async function redriveForCaller(
  deps: RedriveDeps,
  usage: Pick<UsageMeter, 'admit'>,
  request: WorkflowRequest,
  limits: { concurrency: number },
): Promise<WorkflowRequest> {
  if (!isRedrivable(request.status)) throw new RequestNotRedrivableError(request.id, `it is ${request.status}; only a failed or stopped request runs again.`);
  if (request.parent_workflow_request_id !== request.id) {
    throw new RequestNotRedrivableError(request.id, `it is a child request: redrive its parent ${request.parent_workflow_request_id}, whose node redrives it.`);
  }
  await usage.admit(request.account_id);
  return redriveRequest(deps, request, limits);
}
