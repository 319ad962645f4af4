import { randomUUID } from 'node:crypto';
import type { NodeExecution, WorkflowRequest } from '#execution/model.js';

/**
 * A request and its one `transform` node, both `pending`, as
 * `workflowRequests.create` stores them: nothing runs it unless a test
 * (or the bench) enqueues it, so only what the caller does happens. The
 * version id names no stored version.
 */
export function pendingRequest(accountId: string, createdAt = new Date()) {
  const id = randomUUID();
  const nodeId = randomUUID();
  const versionId = randomUUID();
  const now = createdAt.toISOString();
  const request: WorkflowRequest = {
    id,
    account_id: accountId,
    workflow_id: randomUUID(),
    workflow_version_id: versionId,
    entry_node_ids: [nodeId],
    user_id: accountId,
    billing_user_id: accountId,
    parent_node_execution_id: null,
    parent_workflow_request_id: id,
    chat_id: null,
    status: 'pending',
    payload: {},
    query: null,
    metadata: null,
    error: null,
    started_at: null,
    completed_at: null,
    created_at: now,
    node_count: 1,
  };
  const node: NodeExecution = {
    id: randomUUID(),
    workflow_request_id: id,
    node_id: nodeId,
    node_type: 'transform',
    workflow_version_id: versionId,
    status: 'pending',
    input_data: null,
    output_data: null,
    attempt_count: 0,
    error: null,
    parent_count: 0,
    created_at: now,
    started_at: null,
    completed_at: null,
    failed_at: null,
  };
  return { id, nodeId, versionId, request, node };
}
