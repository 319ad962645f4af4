import { randomUUID } from 'node:crypto';
import { type FieldError, ValidationError } from '#platform/errors.js';
import { METRIC } from '#platform/observability/metric-names.js';
import { countMetric } from '#platform/observability/metrics.js';
import type { WebhookNotices } from '#webhooks/index.js';
import type { WorkflowDefinition } from '#workflows/index.js';
import { isExecutable, NODE_PRECHECKS } from './capabilities.js';
import { finishRequest } from './finish.js';
import { graphOf, initialStates } from './graph.js';
import type { NodeExecution, WorkflowRequest } from './model.js';
import type { EnqueueNodeTasks } from './node-queue.js';
import { blockedNode, type NodeShape } from './node-skeleton.js';
import type { WorkflowRequests } from './workflow-requests.js';

export interface StartDeps {
  requests: WorkflowRequests;
  versions: {
    getVersion(
      accountId: string,
      versionId: string,
    ): Promise<{ id: string; workflow_id: string; definition: WorkflowDefinition; entry_node_ids: string[] } | undefined>;
  };
  chats: { get(accountId: string, chatId: string): Promise<unknown> };
  enqueue: EnqueueNodeTasks;
  /** A request that cannot be queued ends at once: its end is an event like any other (finish.ts). */
  webhooks: Pick<WebhookNotices, 'listening' | 'announce'>;
}

export interface StartInput {
  workflow_version_id: string;
  entry_node_ids: string[];
  chat_id?: string;
  query?: string;
  payload?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

const bodyError = (name: string, reason: string, code = 'invalid_reference'): FieldError => ({ name, location: 'body', reason, code });

/**
 * Creates a workflow request (pending) with one node execution per node of
 * the version (written now or on first change, ./node-skeleton.ts), then
 * enqueues the chosen entry nodes. Everything the request
 * refers to is checked first: an unusable reference is 422 at its pointer.
 */
export interface ParentLink {
  requestId: string;
  nodeExecutionId: string;
  nodeId: string;
  depth: number;
  /** Deterministic child id, so a redelivered parent task cannot start a second child. */
  childId: string;
}

/**
 * What a request refers to, checked before anything is written: the
 * account's version, its entry nodes, the chat, and whether every node can
 * run here. Answers the version; an unusable reference is a 422 at its
 * pointer. Also what a hook is checked with when it is created (lib/hooks).
 */
export async function checkStartable(
  deps: Pick<StartDeps, 'versions' | 'chats'>,
  accountId: string,
  input: Pick<StartInput, 'workflow_version_id' | 'entry_node_ids' | 'chat_id'>,
) {
  const version = await deps.versions.getVersion(accountId, input.workflow_version_id);
  if (!version) throw new ValidationError([bodyError('/workflow_version_id', 'no such workflow version')]);
  const errors: FieldError[] = [];
  const entries = new Set(version.entry_node_ids);
  input.entry_node_ids.forEach((id, i) => {
    if (!entries.has(id)) errors.push(bodyError(`/entry_node_ids/${i}`, 'is not an entry node of this version'));
  });
  if (new Set(input.entry_node_ids).size !== input.entry_node_ids.length) errors.push(bodyError('/entry_node_ids', 'has duplicates', 'duplicate'));
  if (input.chat_id !== undefined && !(await deps.chats.get(accountId, input.chat_id))) errors.push(bodyError('/chat_id', 'no such chat'));
  const unsupported = [...new Set(version.definition.nodes.filter((n) => !isExecutable(n.type)).map((n) => n.type))];
  if (unsupported.length > 0) {
    errors.push(bodyError('/workflow_version_id', `uses node types this service cannot execute yet: ${unsupported.join(', ')}`, 'not_supported'));
  }
  for (const node of version.definition.nodes) {
    const reason = NODE_PRECHECKS[node.type]?.(node.config);
    if (reason) errors.push(bodyError('/workflow_version_id', `node ${node.name}: ${reason}`, 'not_runnable'));
  }
  if (errors.length > 0) throw new ValidationError(errors);
  return version;
}

/**
 * `limits`: the account's ceiling on work in progress, for a request the
 * account starts (its principal's limits in force); the request takes one of
 * its slots when created, and past it is refused 429 `rate_limited` with
 * nothing written. A child request (`parent`) takes none: its parent holds
 * one already, and a child refused mid-workflow would fail its parent.
 * `options.id`: a deterministic id (a hook's event, lib/hooks): a request
 * that already has it was started by an earlier delivery and is not started again.
 */
export async function startRequest(
  deps: StartDeps,
  accountId: string,
  input: StartInput,
  parent?: ParentLink,
  limits?: { concurrency: number },
  options: { id?: string } = {},
) {
  const version = await checkStartable(deps, accountId, input);
  const graph = graphOf(version.id, version.definition);
  const states = initialStates(graph, input.entry_node_ids);
  const id = parent?.childId ?? options.id ?? randomUUID();
  const now = new Date().toISOString();
  const shapes = version.definition.nodes.map((node) => ({ node_id: node.id, node_type: node.type, parent_count: graph.parents.get(node.id)?.length ?? 0 }));
  const identity = { id, workflow_version_id: version.id, created_at: now };
  // Only nodes that start in a state of their own get an item now; the rest are
  // written by the first change that reaches them (./node-skeleton.ts).
  const nodes: NodeExecution[] = [];
  const unwritten: NodeShape[] = [];
  for (const shape of shapes) {
    const initial = states.get(shape.node_id)!;
    if (initial.state === 'blocked' && initial.doneParents.length === 0) {
      unwritten.push(shape);
      continue;
    }
    const { unwritten: _, ...node } = blockedNode(identity, shape);
    nodes.push({
      ...node,
      status: initial.state,
      ...(initial.doneParents.length > 0 ? { done_parents: new Set(initial.doneParents) } : {}),
      completed_at: initial.state === 'skipped' ? now : null,
    });
  }
  const request: WorkflowRequest = {
    id,
    account_id: accountId,
    workflow_id: version.workflow_id,
    workflow_version_id: version.id,
    entry_node_ids: input.entry_node_ids,
    user_id: accountId,
    billing_user_id: accountId,
    parent_node_execution_id: parent?.nodeExecutionId ?? null,
    parent_workflow_request_id: parent?.requestId ?? id,
    chat_id: input.chat_id ?? null,
    status: 'pending',
    payload: input.payload ?? {},
    query: input.query ?? null,
    metadata: input.metadata ?? null,
    error: null,
    started_at: null,
    completed_at: null,
    created_at: now,
    node_count: shapes.length,
    parent_node_id: parent?.nodeId ?? null,
    depth: parent ? parent.depth : 0,
  };
  if ((parent || options.id !== undefined) && (await deps.requests.get(id))) return request; // Started by an earlier delivery.
  await deps.requests.create(request, nodes, unwritten, parent ? undefined : limits?.concurrency);
  countMetric(METRIC.workflowRequestsStarted);
  // The nodes no chosen entry leads to were settled by the creation itself.
  countMetric(METRIC.nodeExecutions, { status: 'skipped' }, nodes.filter((node) => node.status === 'skipped').length);
  try {
    // A new request's log is empty: a lone entry's task is told it starts at 1, so its first flush needs no read (emit.ts).
    const seq = input.entry_node_ids.length === 1 ? { seq: 1 } : {};
    await deps.enqueue(input.entry_node_ids.map((nodeId) => ({ request_id: id, node_id: nodeId, node_type: graph.nodes.get(nodeId)?.type, ...seq })));
  } catch (error) {
    // Never leave a request pending with nothing queued to run it.
    // A request that never ran has no node waiting on a person.
    await finishRequest({ ...deps, interactions: null }, id, 'failed', { code: 'internal_error', message: 'The request could not be queued.' });
    throw error;
  }
  return request;
}
