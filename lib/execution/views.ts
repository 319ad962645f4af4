import type { NodeExecution, WorkflowRequest } from './model.js';

/**
 * What the request's node executions used: model tokens as they settle, and
 * its total cost, complete once the request has ended (the flat fees of nodes
 * that called no model are added by its end).
 */
const requestUsage = (r: WorkflowRequest) => ({
  input_tokens: r.input_tokens ?? 0,
  output_tokens: r.output_tokens ?? 0,
  cost_micro_usd: r.cost_micro_usd ?? 0,
});

/** The workflow request as the API shows it (specification, Workflow request). */
export const requestView = (r: WorkflowRequest) => ({
  id: r.id,
  workflow_version_id: r.workflow_version_id,
  workflow_id: r.workflow_id,
  entry_node_ids: r.entry_node_ids,
  user_id: r.user_id,
  billing_user_id: r.billing_user_id,
  parent_node_execution_id: r.parent_node_execution_id,
  parent_workflow_request_id: r.parent_workflow_request_id,
  chat_id: r.chat_id,
  status: r.status,
  payload: r.payload,
  query: r.query,
  metadata: r.metadata,
  error: r.error ?? null,
  usage: requestUsage(r),
  redrive_count: r.redrive_count ?? 0,
  started_at: r.started_at,
  completed_at: r.completed_at,
  created_at: r.created_at,
});

/**
 * The request without what its caller sent (`payload` empty, `query` and
 * `metadata` null), for the event of an end whose whole view could not be
 * stored (endRequest); GET /v1/workflow-requests/{id} still shows them.
 */
export const reducedRequestView = (r: WorkflowRequest) => ({ ...requestView(r), payload: {}, query: null, metadata: null });

/** The node execution as the API shows it (specification, Node execution). */
export const nodeView = (n: NodeExecution) => ({
  id: n.id,
  workflow_request_id: n.workflow_request_id,
  node_id: n.node_id,
  node_type: n.node_type,
  workflow_version_id: n.workflow_version_id,
  status: n.status,
  input_data: n.input_data,
  output_data: n.output_data ?? null,
  attempt_count: n.attempt_count,
  error: n.error ?? null,
  child_request_id: n.child_request_id ?? null,
  usage: n.usage ? { input_tokens: n.usage.input_tokens, output_tokens: n.usage.output_tokens, cost_micro_usd: n.usage.cost_micro_usd } : null,
  created_at: n.created_at,
  started_at: n.started_at,
  completed_at: n.completed_at,
  failed_at: n.failed_at,
});

/** Stream payloads carry a subset (specification, Events 4). */
export const requestEventView = (r: Pick<WorkflowRequest, 'id' | 'status' | 'workflow_version_id'> & Partial<WorkflowRequest>) => ({
  id: r.id,
  status: r.status,
  workflow_version_id: r.workflow_version_id,
  ...(r.completed_at ? { completed_at: r.completed_at } : {}),
  ...(r.error ? { error: r.error } : {}),
  // Tells an end before a redrive from the end after it (request-stream.ts: only the latest closes the stream).
  ...(r.redrive_count ? { redrive_count: r.redrive_count } : {}),
});

export const nodeEventView = (n: NodeExecution) => ({
  id: n.id,
  node_id: n.node_id,
  status: n.status,
  output_data: n.output_data ?? null,
  attempt_count: n.attempt_count,
  ...(n.error ? { error: n.error } : {}),
});
