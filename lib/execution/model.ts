/**
 * The execution feature's model: request and node statuses, and the shapes
 * of a workflow request, a node execution and a logged event as stored.
 */

export const REQUEST_TERMINAL = ['completed', 'failed', 'stopped'] as const;
export const NODE_TERMINAL = ['completed', 'failed', 'skipped', 'stopped'] as const;
export const REQUEST_OPEN = ['pending', 'in_progress', 'waiting'] as const;
export const NODE_OPEN = ['pending', 'in_progress', 'blocked', 'waiting'] as const;
export const REQUEST_STATUSES = [...REQUEST_OPEN, ...REQUEST_TERMINAL] as const;
export const NODE_STATUSES = [...NODE_OPEN, ...NODE_TERMINAL] as const;
export type RequestStatus = (typeof REQUEST_OPEN)[number] | (typeof REQUEST_TERMINAL)[number];
export type NodeStatus = (typeof NODE_OPEN)[number] | (typeof NODE_TERMINAL)[number];
export const isTerminalNode = (status: unknown): boolean => (NODE_TERMINAL as readonly unknown[]).includes(status);
export const isTerminalRequest = (status: unknown): boolean => (REQUEST_TERMINAL as readonly unknown[]).includes(status);

export interface FailureInfo {
  code: string;
  message: string;
}

export interface WorkflowRequest {
  id: string;
  account_id: string;
  workflow_id: string;
  workflow_version_id: string;
  entry_node_ids: string[];
  user_id: string;
  billing_user_id: string | null;
  parent_node_execution_id: string | null;
  parent_workflow_request_id: string;
  chat_id: string | null;
  status: RequestStatus;
  payload: Record<string, unknown>;
  query: string | null;
  metadata: Record<string, unknown> | null;
  error: FailureInfo | null;
  started_at: string | null;
  completed_at: string | null;
  created_at: string;
  node_count: number;
  /** Internal: the node of the parent request this child runs for, and how deep it is nested. */
  parent_node_id?: string | null;
  depth?: number;
  /** Internal: it holds one of the account's slots of work in progress (a root request), released when it ends. */
  concurrency_slot?: boolean;
  /**
   * Internal: the usage of its node executions so far, each added by the
   * settle that records it (top-level attributes, so an ADD needs no map):
   * microdollars, the part extra usage funded (debited once when the request
   * ends), and the model's tokens. Absent: none yet.
   */
  cost_micro_usd?: number;
  extra_micro_usd?: number;
  input_tokens?: number;
  output_tokens?: number;
  /** How many times it was redriven (./redrive.ts); absent: never. */
  redrive_count?: number;
  /** Internal: what its earlier ends settled already, written by its latest redrive, so its next end settles only what ran again. */
  redrive_base?: RedriveBase;
}

/**
 * What a request's ends before its latest redrive settled already: its
 * total cost and extra-funded part then (counted in the day's activity and
 * debited then), the flat fees its kept nodes still carry (recorded into the
 * windows then), and how many node executions the redrive runs again (the
 * node count of its next end).
 */
export interface RedriveBase {
  cost_micro_usd: number;
  extra_micro_usd: number;
  fees_micro_usd: number;
  node_count: number;
}

/** The extra-funded part of a request's cost since its latest redrive (what its earlier ends debited is left out). */
export const extraSinceRedrive = (request: Pick<WorkflowRequest, 'redrive_base'>, extraMicroUsd: number): number =>
  extraMicroUsd - (request.redrive_base?.extra_micro_usd ?? 0);

/** Flat fees still to record, less those its kept nodes carry from before its latest redrive (recorded by an earlier end). */
export const feesSinceRedrive = (request: Pick<WorkflowRequest, 'redrive_base'>, feesMicroUsd: number): number =>
  Math.max(0, feesMicroUsd - (request.redrive_base?.fees_micro_usd ?? 0));

/** The fields a redrive sets on the request it moves back to `in_progress` (the repository writes them, the use case answers with them). */
export const redriveFields = (request: Pick<WorkflowRequest, 'started_at'>, redrive: number, base: RedriveBase, at: string) => ({
  status: 'in_progress' as const,
  redrive_count: redrive,
  redrive_base: base,
  started_at: request.started_at ?? at,
  completed_at: null,
  error: null,
});

export interface NodeExecution {
  id: string;
  workflow_request_id: string;
  node_id: string;
  node_type: string;
  workflow_version_id: string;
  status: NodeStatus;
  input_data: Record<string, unknown> | null;
  output_data: unknown;
  attempt_count: number;
  error: FailureInfo | null;
  parent_count: number;
  done_parents?: Set<string>;
  activated_by?: Set<string>;
  lease_expires_at?: number;
  /** Set on a `workflow` node once it has started its child request. */
  child_request_id?: string | null;
  /** Internal, on an execution a redrive made (./redrive.ts): that redrive's number, the attempts made before it, the child request its earlier execution started and the child's redrive this one waits for. */
  redrive?: number;
  attempts_before?: number;
  previous_child_request_id?: string;
  child_redrive?: number;
  /** What its execution cost (the flat fee, and its model's tokens for an agent node), set by the settle that records it. */
  usage?: { input_tokens: number; output_tokens: number; cost_micro_usd: number; extra_micro_usd: number };
  /** Internal: its flat fee, not yet in the account's usage windows; the request's end records the sum of them. */
  unrecorded_micro_usd?: number;
  /** Built from the request's skeleton: no item yet (./node-skeleton.ts). Never stored. */
  unwritten?: true;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  failed_at: string | null;
}

export interface RequestEvent {
  seq: number;
  created_at: string;
  data: { workflow_request?: Record<string, unknown>; node_execution?: Record<string, unknown> };
}

/** What the request's node states say: `open` while any node is open, else the outcome (a failed node fails it, a stopped one means it was stopped). */
/** A terminal outcome also sums the flat fees its nodes left to the end (`unrecorded_micro_usd`), read with them. */
export type RequestOutcome = { state: 'open' } | { state: 'completed' | 'stopped'; fees: number } | { state: 'failed'; error: FailureInfo; fees: number };

export function outcomeOf(nodes: Iterable<Pick<NodeExecution, 'node_id' | 'status' | 'error' | 'unrecorded_micro_usd'>>): RequestOutcome {
  let failed: FailureInfo | undefined;
  let stopped = false;
  let fees = 0;
  for (const node of nodes) {
    if (!isTerminalNode(node.status)) return { state: 'open' };
    fees += node.unrecorded_micro_usd ?? 0;
    if (node.status === 'failed') failed ??= node.error ?? { code: 'node_failed', message: `Node ${node.node_id} failed.` };
    if (node.status === 'stopped') stopped = true;
  }
  if (failed) return { state: 'failed', error: failed, fees };
  return { state: stopped ? 'stopped' : 'completed', fees };
}

/** A node's settle: its terminal status and fields, on condition of the statuses (and attempt) it must still have; `create` writes it whole when it has no item yet. */
export interface NodeSettle {
  requestId: string;
  nodeId: string;
  from: readonly NodeStatus[];
  set: Partial<NodeExecution> & { status: (typeof NODE_TERMINAL)[number] };
  attempt?: number | undefined;
  create?: NodeExecution | undefined;
}

/** What a node execution used, recorded by its settle (lib/platform/config/prices.ts prices it). */
export interface NodeCost {
  accountId: string;
  costMicroUsd: number;
  inputTokens: number;
  outputTokens: number;
}
