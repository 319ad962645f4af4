import type { NodeExecution, WorkflowRequestsRepo } from '../data/workflow-requests.js';
import { nodeEventView } from './views.js';

/** Appends a node change to its request's event log (what listeners stream). */
export async function emitNode(deps: { requests: WorkflowRequestsRepo }, node: NodeExecution): Promise<void> {
  await deps.requests.appendEvent(node.workflow_request_id, { node_execution: nodeEventView(node) });
}
