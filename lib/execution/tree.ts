import type { WorkflowRequest } from './model.js';
import type { ExecutionTree } from './openapi/workflow-requests-responses.js';
import { nodeView, requestView } from './views.js';
import type { WorkflowRequestsRepo } from './workflow-requests-repository.js';

/** The request with its node executions, and (recursively) the trees of the child requests its `workflow` nodes started. */
export async function executionTree(requests: WorkflowRequestsRepo, request: WorkflowRequest): Promise<ExecutionTree> {
  const nodes = (await requests.listNodes(request.id)).sort((a, b) => a.created_at.localeCompare(b.created_at) || a.node_id.localeCompare(b.node_id));
  const children: ExecutionTree[] = [];
  for (const node of nodes) {
    const child = node.child_request_id ? await requests.get(node.child_request_id) : undefined;
    if (child) children.push(await executionTree(requests, child));
  }
  const redriven = request.redrive_count ? await requests.redrivenNodes(request.id) : [];
  return {
    workflow_request: requestView(request),
    node_executions: nodes.map(nodeView),
    redriven_node_executions: redriven.map(nodeView),
    children,
  } as ExecutionTree;
}
