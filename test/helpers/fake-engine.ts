import { randomUUID } from 'node:crypto';
import type { EngineDeps } from '#execution/executor.js';
import type { NodeExecution, NodeStatus, RequestEvent, RequestStatus, WorkflowRequest } from '#execution/model.js';
import { outcomeOf } from '#execution/model.js';
import type { NodeTask } from '#execution/node-queue.js';
import type { WorkerRuntime } from '#execution/node-runner.js';
import { blockedNode, type NodeShape } from '#execution/node-skeleton.js';
import type { WorkflowRequests } from '#execution/workflow-requests.js';
import type { WorkflowDefinition } from '#workflows/index.js';

const clone = <T>(value: T): T => structuredClone(value);

/**
 * The engine's view of the requests repository, in memory, with the same
 * conditions as the DynamoDB one (status guards, attempt and lease checks,
 * set-valued fan-in marks), so the engine's logic is tested without a table.
 * `calls` counts every method, for asserting what a step wrote.
 */
function fakeRequests() {
  const requests = new Map<string, WorkflowRequest>();
  const nodes = new Map<string, NodeExecution>();
  const events: Array<{ requestId: string; data: RequestEvent['data'] }> = [];
  const calls: Record<string, number> = {};
  const count = (name: string) => {
    calls[name] = (calls[name] ?? 0) + 1;
  };
  const key = (requestId: string, nodeId: string) => `${requestId}/${nodeId}`;
  let seq = 0;
  const skeletons = new Map<string, NodeShape[]>();
  /** The stored node, or the one `create` says to write when none is (the DynamoDB repo's if_not_exists). */
  const stored = (requestId: string, nodeId: string, create?: NodeExecution): NodeExecution | undefined => {
    const found = nodes.get(key(requestId, nodeId));
    if (found || !create) return found;
    const { unwritten: _, ...node } = clone(create);
    nodes.set(key(requestId, nodeId), node);
    return node;
  };
  const all = (requestId: string): NodeExecution[] => {
    const list = [...nodes.values()].filter((n) => n.workflow_request_id === requestId).map(clone);
    const request = requests.get(requestId);
    for (const shape of skeletons.get(requestId) ?? []) {
      if (request && !nodes.has(key(requestId, shape.node_id))) list.push(blockedNode(request, shape));
    }
    return list;
  };
  const repo = {
    async create(request: WorkflowRequest, list: NodeExecution[], unwritten: NodeShape[] = []) {
      count('create');
      if (requests.has(request.id)) throw Object.assign(new Error('exists'), { name: 'ConditionalCheckFailedException' });
      requests.set(request.id, clone(request));
      skeletons.set(request.id, unwritten);
      for (const node of list) nodes.set(key(request.id, node.node_id), clone(node));
    },
    async get(requestId: string) {
      count('get');
      const found = requests.get(requestId);
      return found && clone(found);
    },
    async getNode(requestId: string, nodeId: string) {
      count('getNode');
      const found = nodes.get(key(requestId, nodeId));
      return found && clone(found);
    },
    async listNodes(requestId: string) {
      count('listNodes');
      return all(requestId);
    },
    async transitionNode(
      requestId: string,
      nodeId: string,
      from: readonly NodeStatus[],
      set: Partial<NodeExecution> & { status: NodeStatus },
      options: { incrementAttempt?: boolean; leaseExpiredBefore?: number; create?: NodeExecution } = {},
    ) {
      count('transitionNode');
      const node = stored(requestId, nodeId, options.create);
      if (!node || !from.includes(node.status)) return undefined;
      if (options.leaseExpiredBefore !== undefined && node.lease_expires_at !== undefined && node.lease_expires_at >= options.leaseExpiredBefore)
        return undefined;
      Object.assign(node, set);
      if (options.incrementAttempt) node.attempt_count += 1;
      return clone(node);
    },
    /** transitionNode that answers, when refused, the node as it stands (the DynamoDB repo's ReturnValuesOnConditionCheckFailure). */
    async claimNode(
      requestId: string,
      nodeId: string,
      from: readonly NodeStatus[],
      set: Partial<NodeExecution> & { status: NodeStatus },
      options: { incrementAttempt?: boolean; leaseExpiredBefore?: number; create?: NodeExecution } = {},
    ) {
      count('claimNode');
      const before = nodes.get(key(requestId, nodeId));
      const leased = (node: NodeExecution) =>
        options.leaseExpiredBefore !== undefined && node.lease_expires_at !== undefined && node.lease_expires_at >= options.leaseExpiredBefore;
      if (before ? !from.includes(before.status) || leased(before) : !options.create || !from.includes(options.create.status)) {
        return { claimed: undefined, current: before && clone(before) };
      }
      const node = stored(requestId, nodeId, options.create)!;
      Object.assign(node, set);
      if (options.incrementAttempt) node.attempt_count += 1;
      return { claimed: clone(node) };
    },
    async settleNode(requestId: string, nodeId: string, from: readonly NodeStatus[], set: Partial<NodeExecution>, attempt?: number, create?: NodeExecution) {
      count('settleNode');
      const node = stored(requestId, nodeId, create);
      if (!node || !from.includes(node.status) || (attempt !== undefined && node.attempt_count !== attempt)) return false;
      Object.assign(node, set);
      return true;
    },
    async outcome(requestId: string) {
      count('outcome');
      return outcomeOf(all(requestId));
    },
    async markParentsDone(requestId: string, child: NodeExecution, parentIds: string[], activatedIds: string[]) {
      count('markParentsDone');
      const node = stored(requestId, child.node_id, child.unwritten ? child : undefined);
      if (!node) throw Object.assign(new Error('no child'), { name: 'ConditionalCheckFailedException' });
      node.done_parents = new Set([...(node.done_parents ?? []), ...parentIds]);
      if (activatedIds.length > 0) node.activated_by = new Set([...(node.activated_by ?? []), ...activatedIds]);
      return clone(node);
    },
    async transitionRequest(requestId: string, from: readonly RequestStatus[], set: Partial<WorkflowRequest> & { status: RequestStatus }) {
      count('transitionRequest');
      const request = requests.get(requestId);
      if (!request || !from.includes(request.status)) return undefined;
      Object.assign(request, set);
      return clone(request);
    },
    /** The DynamoDB store also settles the end (lib/settlement): the day's counts, the slot, the debit, in the same transaction. */
    async endRequest(
      requestId: string,
      from: readonly RequestStatus[],
      set: Partial<WorkflowRequest> & { status: RequestStatus },
      options: { eventOf?: (ended: WorkflowRequest) => Promise<unknown>; afterCommit?: (ended: WorkflowRequest) => Promise<void> } = {},
    ) {
      count('endRequest');
      const request = requests.get(requestId);
      if (!request || !from.includes(request.status)) return undefined;
      // Asked, as the table's store asks it, for the event written with the end.
      await options.eventOf?.({ ...clone(request), ...set });
      Object.assign(request, set);
      // What follows the commit runs once it happened, as settlement runs it.
      await options.afterCommit?.(clone(request));
      return clone(request);
    },
    async appendEvents(requestId: string, data: Array<RequestEvent['data']>) {
      count('appendEvents');
      return data.map((d) => {
        events.push({ requestId, data: d });
        return { seq: ++seq, created_at: new Date().toISOString(), data: d } as RequestEvent;
      });
    },
    async appendEvent(requestId: string, data: RequestEvent['data']) {
      count('appendEvent');
      events.push({ requestId, data });
      return { seq: ++seq, created_at: new Date().toISOString(), data } as RequestEvent;
    },
  };
  return {
    repo: repo as unknown as WorkflowRequests,
    requests,
    nodes,
    events,
    calls,
    node: (requestId: string, nodeId: string) => nodes.get(key(requestId, nodeId)),
    /** Every node of the request as readers see it: the items and the skeleton's unwritten nodes. */
    nodesOf: all,
  };
}

/**
 * Engine dependencies on fakes: one stored version, a queue that records
 * what it was given, and runners that compute `{ n: <input n> + 1 }` for a
 * transform (or what `transform` returns) and take every edge whose `when`
 * is `"true"`.
 */
export function fakeEngine(definition: WorkflowDefinition, options: { transform?: WorkerRuntime['runners']['transform'] } = {}) {
  const store = fakeRequests();
  const queued: Array<{ tasks: NodeTask[]; delaySeconds?: number }> = [];
  // A fresh version id per engine: the executor caches graphs per account and version for the container's life.
  const version = {
    id: randomUUID(),
    workflow_id: 'w1',
    definition,
    entry_node_ids: definition.nodes.filter((n) => !definition.edges.some((e) => e.to === n.id)).map((n) => n.id),
  };
  const resolved: Array<{ id: string; status: string }> = [];
  const deps: EngineDeps = {
    requests: store.repo,
    versions: { getVersion: async (_account, id) => (id === version.id ? version : undefined) },
    chats: { get: async (_account, id) => (id === 'chat-1' ? { id } : undefined) },
    enqueue: async (tasks, delaySeconds) => {
      queued.push({ tasks, delaySeconds });
    },
    interactions: {
      createOnce: async (i: unknown) => i,
      get: async () => undefined,
      resolve: async (id: string, status: string) => {
        resolved.push({ id, status });
        return undefined;
      },
    } as unknown as EngineDeps['interactions'],
    usage: { check: async () => undefined },
    webhooks: { listening: async () => false, announce: async () => undefined },
    runtime: {
      runners: {
        transform:
          options.transform ??
          (async ({ input }) => {
            const own = (input as { n?: unknown }).n;
            const fromParents = Object.values(input).map((v) => (v as { n?: number } | null)?.n ?? 0);
            return { n: (typeof own === 'number' ? own : Math.max(0, ...fromParents)) + 1 };
          }),
        condition: async ({ input }) => input,
      },
      edgeTaken: async (when) => when === undefined || when === 'true',
    },
  };
  return { deps, store, queued, version, resolved };
}

/** A definition from a compact list: nodes `[id, type, extra?]` and edges `[from, to, when?]`. */
export function definitionOf(nodes: Array<[string, string, Record<string, unknown>?]>, edges: Array<[string, string, string?]> = []): WorkflowDefinition {
  return {
    nodes: nodes.map(([id, type, extra]) => ({ id, name: id, type, config: {}, ...extra })),
    edges: edges.map(([from, to, when]) => ({ from, to, ...(when !== undefined ? { when } : {}) })),
  } as unknown as WorkflowDefinition;
}

/** Transform nodes for `definitionOf`, one per id. */
export const transforms = (...ids: string[]) => ids.map((id): [string, string] => [id, 'transform']);
