import type { WorkflowRequest, WorkflowRequestsRepo } from '../data/workflow-requests.js';
import type { ExecutionTree } from '../schemas/workflow-requests.js';
import { nodeView, requestView } from './views.js';

/**
 * The request with its node executions, and the trees of its child requests.
 * Child requests come from `workflow` nodes, which are not built yet, so
 * `children` is empty until they are.
 */
export async function executionTree(requests: WorkflowRequestsRepo, request: WorkflowRequest): Promise<ExecutionTree> {
  const nodes = await requests.listNodes(request.id);
  return {
    workflow_request: requestView(request),
    node_executions: nodes.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.node_id.localeCompare(b.node_id)).map(nodeView),
    children: [],
  } as ExecutionTree;
}
