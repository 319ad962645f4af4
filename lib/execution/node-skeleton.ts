import { nameBasedUuid } from '#platform/uuid.js';
import type { Graph } from './graph.js';
import type { NodeExecution, WorkflowRequest } from './model.js';

/**
 * A node execution before anything happened to it. A request writes the
 * items of its entry nodes (and of the nodes skipped from the start) when
 * it is created; every other node execution is written by the first change
 * that reaches it (a claim, a skip, a fan-in mark, a stop), which creates
 * the item in the same conditional write. Until then readers build it from
 * the request's skeleton item (the node ids, types and parent counts), so
 * every reader sees every node, `blocked`, from the start.
 */
export interface NodeShape {
  node_id: string;
  node_type: string;
  parent_count: number;
}

/** The node execution's id, the same whoever writes or builds it first: a name-based UUID (version 5 layout) of the request and node ids. */
export function nodeExecutionId(requestId: string, nodeId: string): string {
  return nameBasedUuid(`${requestId}/${nodeId}`);
}

/** A node execution not written yet: `unwritten` until a change creates its item. */
export function blockedNode(request: Pick<WorkflowRequest, 'id' | 'workflow_version_id' | 'created_at'>, shape: NodeShape): NodeExecution {
  return {
    id: nodeExecutionId(request.id, shape.node_id),
    workflow_request_id: request.id,
    node_id: shape.node_id,
    node_type: shape.node_type,
    workflow_version_id: request.workflow_version_id,
    status: 'blocked',
    input_data: null,
    output_data: null,
    attempt_count: 0,
    error: null,
    parent_count: shape.parent_count,
    created_at: request.created_at,
    started_at: null,
    completed_at: null,
    failed_at: null,
    unwritten: true,
  };
}

/** A node of the request's graph as it stands before its item is written. */
export function unwrittenNode(request: Pick<WorkflowRequest, 'id' | 'workflow_version_id' | 'created_at'>, graph: Graph, nodeId: string): NodeExecution {
  const definition = graph.nodes.get(nodeId);
  if (!definition) throw new Error(`node ${nodeId} is not in version ${request.workflow_version_id}`);
  return blockedNode(request, { node_id: nodeId, node_type: definition.type, parent_count: graph.parents.get(nodeId)?.length ?? 0 });
}
