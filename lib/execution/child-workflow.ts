import { createHash } from 'node:crypto';
import { DomainError } from '#platform/errors.js';
import { METRIC } from '#platform/observability/metric-names.js';
import { countMetric } from '#platform/observability/metrics.js';
import type { WorkflowNode } from '#workflows/index.js';
import { type EventBuffer, emitNode } from './emit.js';
import { RequestNotRedrivableError } from './errors.js';
import { isTerminalRequest, type NodeExecution, type WorkflowRequest } from './model.js';
import type { EnqueueNodeTasks } from './node-queue.js';
import { isRedrivable, type RedriveDeps, redriveRequest } from './redrive.js';
import { type StartDeps, startRequest } from './start.js';
import { wakeParent } from './wake.js';
import type { WorkflowRequests } from './workflow-requests.js';

/** Nested `workflow` nodes beyond this depth fail instead of recursing forever. */
export const MAX_CHILD_DEPTH = 10;
/** A node waiting on its child holds its lease this long; the child's end wakes it. */
const CHILD_LEASE_MS = 30 * 24 * 3600 * 1000;

export const childRequestIdFor = (nodeExecutionId: string): string => {
  const hex = createHash('sha256').update(`child:${nodeExecutionId}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-b${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

type ChildDeps = StartDeps & { requests: WorkflowRequests; enqueue: EnqueueNodeTasks };

/** Redrives a child request for its parent's node; one that another delivery redrove first is left to it. */
async function redriveChild(deps: RedriveDeps, child: WorkflowRequest): Promise<void> {
  try {
    await redriveRequest(deps, child);
  } catch (error) {
    if (!(error instanceof RequestNotRedrivableError)) throw error;
  }
}

/**
 * A redriven `workflow` node takes up the child its earlier execution
 * started: an ended child that failed or was stopped is redriven with it
 * (what the child completed is not run again), one that completed answers at
 * once (its parent's node task is sent to pick the result up), one still
 * going is waited for. The child's redrive it waits for is marked on the
 * node first (`child_redrive`), so a crash before the redrive is made good
 * by the node's next task (resumeChild).
 */
async function rejoinChild(deps: ChildDeps, request: WorkflowRequest, node: NodeExecution, child: WorkflowRequest): Promise<void> {
  const again = isRedrivable(child.status);
  const marked = await deps.requests.transitionNode(request.id, node.node_id, ['in_progress'], {
    status: 'in_progress',
    child_request_id: child.id,
    lease_expires_at: Date.now() + CHILD_LEASE_MS,
    ...(again ? { child_redrive: (child.redrive_count ?? 0) + 1 } : {}),
  });
  if (!marked) return;
  if (again) await redriveChild(deps, child);
  else if (isTerminalRequest(child.status)) await wakeParent(deps, child);
}

/**
 * A `workflow` node starts its child request (once: the child id is derived
 * from the node execution) with the node's input as payload, and stays
 * in progress until the child finishes.
 */
export async function startChild(deps: ChildDeps, request: WorkflowRequest, definition: WorkflowNode, node: NodeExecution, input: Record<string, unknown>) {
  const config = definition.config as { workflow_version_id: string; entry_node_ids?: string[] };
  const depth = (request.depth ?? 0) + 1;
  if (depth > MAX_CHILD_DEPTH) return { failure: { code: 'max_depth_exceeded', message: `Workflow nodes nest at most ${MAX_CHILD_DEPTH} deep.` } };
  const previous = node.previous_child_request_id ? await deps.requests.get(node.previous_child_request_id) : undefined;
  if (previous) {
    await rejoinChild(deps, request, node, previous);
    return {};
  }
  const version = await deps.versions.getVersion(request.account_id, config.workflow_version_id);
  if (!version) return { failure: { code: 'invalid_child_workflow', message: `Workflow version ${config.workflow_version_id} does not exist.` } };
  const childId = childRequestIdFor(node.id);
  const marked = await deps.requests.transitionNode(request.id, node.node_id, ['in_progress'], {
    status: 'in_progress',
    child_request_id: childId,
    lease_expires_at: Date.now() + CHILD_LEASE_MS,
  });
  if (!marked) return {};
  try {
    await startRequest(
      deps,
      request.account_id,
      {
        workflow_version_id: version.id,
        entry_node_ids: config.entry_node_ids ?? version.entry_node_ids,
        payload: childPayload(input, node),
        ...(request.chat_id ? { chat_id: request.chat_id } : {}),
      },
      { requestId: request.id, nodeExecutionId: node.id, nodeId: node.node_id, depth, childId },
    );
  } catch (error) {
    if (error instanceof DomainError) return { failure: { code: 'invalid_child_workflow', message: error.detail } };
    throw error;
  }
  return {};
}

/**
 * The child's payload: the node's input, except that a node with a single
 * parent whose output is an object passes that object itself (so a child
 * reads `n`, not `<parent id>.n`).
 */
export function childPayload(input: Record<string, unknown>, node: Pick<NodeExecution, 'parent_count'>): Record<string, unknown> {
  const values = Object.values(input);
  const only = values[0];
  if (node.parent_count === 1 && values.length === 1 && only !== null && typeof only === 'object' && !Array.isArray(only))
    return only as Record<string, unknown>;
  return input;
}

/**
 * Settles a `workflow` node whose child finished: completed with the
 * child's leaf outputs, or failed with the child's error. Undefined while
 * the child still runs or when another delivery settled the node.
 */
export async function resumeChild(
  deps: RedriveDeps & { events?: EventBuffer },
  request: WorkflowRequest,
  node: NodeExecution,
): Promise<NodeExecution | undefined> {
  const child = node.child_request_id ? await deps.requests.get(node.child_request_id) : undefined;
  if (!child || !isTerminalRequest(child.status)) return undefined;
  // The child's redrive this node waits for was not made (rejoinChild died before it): made now.
  if ((child.redrive_count ?? 0) < (node.child_redrive ?? 0) && isRedrivable(child.status)) {
    await redriveChild(deps, child);
    return undefined;
  }
  const at = new Date().toISOString();
  let set: Partial<NodeExecution> & { status: 'completed' | 'failed' };
  if (child.status === 'completed') {
    const nodes = await deps.requests.listNodes(child.id);
    const completed = new Set(nodes.filter((n) => n.status === 'completed').map((n) => n.node_id));
    const version = await deps.versions.getVersion(child.account_id, child.workflow_version_id);
    const consumed = new Set((version?.definition.edges ?? []).filter((e) => completed.has(e.to)).map((e) => e.from));
    // A leaf is a completed node no completed node consumed: its output is the child's result.
    const outputs = Object.fromEntries(
      nodes.filter((n) => completed.has(n.node_id) && !consumed.has(n.node_id)).map((n) => [n.node_id, n.output_data ?? null]),
    );
    set = { status: 'completed', output_data: { workflow_request_id: child.id, outputs }, completed_at: at };
  } else {
    set = { status: 'failed', error: { code: 'child_workflow_failed', message: `The child request ${child.id} ended ${child.status}.` }, failed_at: at };
  }
  if (!(await deps.requests.settleNode(request.id, node.node_id, ['in_progress'], set))) return undefined;
  countMetric(METRIC.nodeExecutions, { status: set.status });
  const settled = { ...node, ...set };
  await emitNode(deps, settled);
  return settled;
}
