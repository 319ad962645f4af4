import type { InteractionsService } from '#interactions/index.js';
import { Failure } from '#platform/failure.js';
import type { WorkflowNode } from '#workflows/index.js';
import { openApproval, resumeApproval } from './approval.js';
import { resumeChild, startChild } from './child-workflow.js';
import { EventBuffer, emitNode, emitRequest } from './emit.js';
import { finishRequest, settleAs } from './finish.js';
import { type Graph, graphOf } from './graph.js';
import { NodeFailure } from './node-failure.js';
import type { EnqueueNodeTasks, NodeTask } from './node-queue.js';
import type { WorkerRuntime } from './node-runner.js';
import { retryDelayMs, shouldRetry } from './retry.js';
import type { StartDeps } from './start.js';
import {
  type FailureInfo,
  isTerminalNode,
  isTerminalRequest,
  type NodeExecution,
  type WorkflowRequest,
  type WorkflowRequestsRepo,
} from './workflow-requests-repository.js';

export interface EngineDeps extends StartDeps {
  requests: WorkflowRequestsRepo;
  enqueue: EnqueueNodeTasks;
  interactions: InteractionsService;
  /** The node types this worker runs and whether it evaluates JSONata (lib/execution/node-runner.ts). */
  runtime: WorkerRuntime;
  /** Set for the length of one task's processing; see EventBuffer. */
  events?: EventBuffer;
  /** Nodes this invocation settled: inline children take parent outputs from here instead of re-reading them. */
  settled?: Map<string, NodeExecution>;
  /** Fan-in marks gathered during the invocation (flushDeferredMarks). */
  deferredMarks?: DeferredMarks;
}

/** The message must come back later (another delivery holds the node now). */
export class RetryLater extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'RetryLater';
  }
}

/** A node execution is one DynamoDB item (400 KB at most); its output must leave room for the rest. */
export const MAX_OUTPUT_BYTES = 300_000;
const outputTooLarge = (output: unknown): boolean => Buffer.byteLength(JSON.stringify(output ?? null)) > MAX_OUTPUT_BYTES;

// Versions are immutable: one read per container and version is enough.
const versionCache = new Map<string, Graph>();

async function loadGraph(deps: EngineDeps, request: WorkflowRequest): Promise<Graph> {
  const cacheKey = `${request.account_id}/${request.workflow_version_id}`;
  const cached = versionCache.get(cacheKey);
  if (cached) return cached;
  const version = await deps.versions.getVersion(request.account_id, request.workflow_version_id);
  if (!version) throw new Error(`version ${request.workflow_version_id} of request ${request.id} is gone`);
  const graph = graphOf(version.id, version.definition);
  versionCache.set(cacheKey, graph);
  return graph;
}

/**
 * Node types that compute a pure function of their input in-process. Without
 * a retry policy they run without a claim (two deliveries computing the same
 * result is harmless; the settle's condition lets one win) and, when a parent
 * finishes, inline in the same invocation instead of a queue round trip.
 */
const PURE_TYPES = new Set<string>(['transform', 'condition']);
const isPure = (definition: WorkflowNode | undefined): definition is WorkflowNode => !!definition && PURE_TYPES.has(definition.type) && !definition.retry;
/** Types the executor handles itself, in every worker. */
const EXECUTOR_TYPES = new Set(['approval', 'workflow']);
const runsHere = (deps: EngineDeps, type: string): boolean => EXECUTOR_TYPES.has(type) || type in deps.runtime.runners;
/** Inline work stops this long before the invocation's deadline; the rest goes to the queue. */
const INLINE_MARGIN_MS = 10_000;

async function markRequestStarted(deps: EngineDeps, request: WorkflowRequest, at: string): Promise<void> {
  if (request.status !== 'pending') return;
  const started = await deps.requests.transitionRequest(request.id, ['pending'], { status: 'in_progress', started_at: at });
  if (started) {
    request.status = 'in_progress';
    await emitRequest(deps, started);
  }
}

async function nodeInput(deps: EngineDeps, request: WorkflowRequest, graph: Graph, nodeId: string): Promise<Record<string, unknown>> {
  const parents = graph.parents.get(nodeId) ?? [];
  if (parents.length === 0) {
    return request.query !== null && !('query' in request.payload) ? { ...request.payload, query: request.query } : request.payload;
  }
  const input: Record<string, unknown> = {};
  for (const parentId of parents) {
    const parent = deps.settled?.get(parentId) ?? (await deps.requests.getNode(request.id, parentId));
    if (parent?.status === 'completed') input[parentId] = parent.output_data ?? null;
  }
  return input;
}

/**
 * Runs one node task under at-least-once delivery. Every state change is a
 * conditional write, so a duplicate or redelivered message either finds the
 * work done (and only re-runs the idempotent propagation to children) or
 * loses the race and changes nothing.
 */
export async function processNodeTask(task: NodeTask, deps: EngineDeps, deadline: () => number): Promise<void> {
  const events = new EventBuffer();
  const scoped: EngineDeps = { ...deps, events, settled: new Map(), deferredMarks: new Map() };
  try {
    await processNode(task, scoped, deadline);
    await flushDeferredMarks(scoped, deadline);
  } finally {
    await events.flush(deps.requests);
  }
}

/**
 * `known` is given for inline children: the request and the child as the
 * parent's invocation just read them, so nothing is read again.
 */
async function processNode(task: NodeTask, deps: EngineDeps, deadline: () => number, known?: { request: WorkflowRequest; node: NodeExecution }): Promise<void> {
  const inline = known !== undefined;
  const request = known?.request ?? (await deps.requests.get(task.request_id));
  const node = known?.node ?? (request && (await deps.requests.getNode(task.request_id, task.node_id)));
  if (!request || !node) return;
  const graph = await loadGraph(deps, request);

  if (isTerminalRequest(request.status)) {
    await settleAs(deps, node, 'stopped', null);
    return;
  }
  if (isTerminalNode(node.status)) {
    await afterSettled(deps, request, graph, node, deadline);
    return;
  }
  if (node.status === 'waiting') {
    const resumed = await resumeApproval(deps, request, node);
    if (resumed) await afterSettled(deps, request, graph, resumed, deadline);
    return;
  }
  // A blocked node is only run inline, by the parent that made it ready.
  if (node.status === 'blocked' && !inline) return;
  if (node.status === 'in_progress' && node.child_request_id) {
    const settled = await resumeChild(deps, request, node);
    if (settled) await afterSettled(deps, request, graph, settled, deadline);
    return;
  }
  // A task on the wrong queue (another worker runs this type) is passed on.
  if (!runsHere(deps, node.node_type)) {
    await deps.enqueue([{ request_id: request.id, node_id: node.node_id, node_type: node.node_type }]);
    return;
  }
  const pureDefinition = graph.nodes.get(node.node_id);
  if (isPure(pureDefinition) && node.status !== 'in_progress') {
    await runPure(deps, request, graph, pureDefinition, node, deadline);
    return;
  }

  const now = Date.now();
  if (node.status === 'in_progress' && (node.lease_expires_at ?? 0) > now) throw new RetryLater(`node ${node.node_id} is running elsewhere`);

  const definition = graph.nodes.get(node.node_id);
  if (!definition) throw new Error(`node ${node.node_id} is not in version ${request.workflow_version_id}`);
  const input = await nodeInput(deps, request, graph, node.node_id);
  // Leave the invocation a margin to record the outcome, but never eat the whole budget.
  const budget = deadline();
  const timeoutMs = Math.max(1, Math.min(definition.timeout_ms ?? 300_000, budget - Math.min(5_000, budget / 5)));
  const claimed = await deps.requests.transitionNode(
    request.id,
    node.node_id,
    ['pending', 'in_progress'],
    { status: 'in_progress', started_at: new Date(now).toISOString(), input_data: input, lease_expires_at: now + timeoutMs + 10_000, error: null },
    { incrementAttempt: true, leaseExpiredBefore: now },
  );
  if (!claimed) throw new RetryLater(`node ${node.node_id} was claimed by another delivery`);
  await emitNode(deps, claimed);
  await markRequestStarted(deps, request, new Date(now).toISOString());

  if (definition.type === 'approval') {
    await openApproval(deps, request, definition, claimed);
    return;
  }
  if (definition.type === 'workflow') {
    const { failure } = await startChild(deps, request, definition, claimed, input);
    if (failure) await handleFailure(deps, request, graph, definition, claimed, new NodeFailure(failure.code, failure.message, false));
    return;
  }
  // The claim's event goes out before a node that may run for a while.
  await deps.events?.flush(deps.requests);
  let output: unknown;
  try {
    output = await runWithTimeout(deps.runtime, definition, input, timeoutMs, request, claimed);
  } catch (error) {
    await handleFailure(deps, request, graph, definition, claimed, error);
    return;
  }
  if (outputTooLarge(output)) {
    await handleFailure(
      deps,
      request,
      graph,
      definition,
      claimed,
      new NodeFailure('output_too_large', `The node output exceeds ${MAX_OUTPUT_BYTES} bytes of JSON.`, false),
    );
    return;
  }
  const completedAt = new Date().toISOString();
  const settled = await deps.requests.settleNode(
    request.id,
    node.node_id,
    ['in_progress'],
    { status: 'completed', output_data: output, completed_at: completedAt },
    claimed.attempt_count,
  );
  if (!settled) return; // Stopped meanwhile, or the lease was taken over: that delivery owns the node.
  const done = { ...claimed, status: 'completed' as const, output_data: output, completed_at: completedAt };
  deps.settled?.set(done.node_id, done);
  await emitNode(deps, done);
  await afterSettled(deps, request, graph, done, deadline);
}

/**
 * A pure node (PURE_TYPES, no retry policy): computed, then settled straight
 * from pending (or blocked, when run inline) to completed or failed in one
 * conditional write. Its stream shows that one change.
 */
async function runPure(deps: EngineDeps, request: WorkflowRequest, graph: Graph, definition: WorkflowNode, node: NodeExecution, deadline: () => number) {
  const startedAt = new Date().toISOString();
  await markRequestStarted(deps, request, startedAt);
  const input = await nodeInput(deps, request, graph, node.node_id);
  const budget = deadline();
  const timeoutMs = Math.max(1, Math.min(definition.timeout_ms ?? 300_000, budget - Math.min(5_000, budget / 5)));
  const attempt = node.attempt_count + 1;
  let set: Partial<NodeExecution> & { status: 'completed' | 'failed' };
  try {
    const output = await runWithTimeout(deps.runtime, definition, input, timeoutMs, request, { ...node, input_data: input, attempt_count: attempt });
    if (outputTooLarge(output)) throw new NodeFailure('output_too_large', `The node output exceeds ${MAX_OUTPUT_BYTES} bytes of JSON.`, false);
    set = {
      status: 'completed',
      input_data: input,
      output_data: output,
      attempt_count: attempt,
      started_at: startedAt,
      completed_at: new Date().toISOString(),
    };
  } catch (error) {
    const failure =
      error instanceof Failure ? { code: error.code, message: error.message } : { code: 'internal_error', message: 'The node failed unexpectedly.' };
    set = { status: 'failed', input_data: input, error: failure, attempt_count: attempt, started_at: startedAt, failed_at: new Date().toISOString() };
  }
  if (!(await deps.requests.settleNode(request.id, node.node_id, ['pending', 'blocked'], set, node.attempt_count))) return;
  const settled = { ...node, ...set };
  deps.settled?.set(node.node_id, settled);
  await emitNode(deps, settled);
  await afterSettled(deps, request, graph, settled, deadline);
}

async function runWithTimeout(
  runtime: WorkerRuntime,
  definition: WorkflowNode,
  input: Record<string, unknown>,
  timeoutMs: number,
  request: WorkflowRequest,
  execution: NodeExecution,
): Promise<unknown> {
  const runner = runtime.runners[definition.type];
  if (!runner) throw new NodeFailure('node_type_not_supported', `Node type ${definition.type} cannot be executed yet.`, false);
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abort.abort();
      reject(new NodeFailure('timeout', `The node did not finish within ${timeoutMs} ms.`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([runner({ node: definition, input, signal: abort.signal, request, execution }), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function handleFailure(deps: EngineDeps, request: WorkflowRequest, graph: Graph, definition: WorkflowNode, node: NodeExecution, error: unknown) {
  const failure: FailureInfo =
    error instanceof Failure ? { code: error.code, message: error.message } : { code: 'internal_error', message: 'The node failed unexpectedly.' };
  if (shouldRetry(definition.retry, node.attempt_count, error)) {
    const requeued = await deps.requests.transitionNode(request.id, node.node_id, ['in_progress'], { status: 'pending', error: failure, lease_expires_at: 0 });
    if (requeued) {
      await emitNode(deps, requeued);
      await deps.enqueue(
        [{ request_id: request.id, node_id: node.node_id, node_type: node.node_type }],
        retryDelayMs(definition.retry!, node.attempt_count) / 1000,
      );
    }
    return;
  }
  const failedAt = new Date().toISOString();
  if (
    !(await deps.requests.settleNode(request.id, node.node_id, ['in_progress'], { status: 'failed', error: failure, failed_at: failedAt }, node.attempt_count))
  )
    return;
  const failed = { ...node, status: 'failed' as const, error: failure, failed_at: failedAt };
  await emitNode(deps, failed);
  await afterSettled(deps, request, graph, failed, () => 0);
}

/**
 * What follows a node reaching a terminal state; safe to run again for the
 * same node. A failed node fails the request. Otherwise each child learns
 * that this parent is done (and whether its edge was taken); a child whose
 * parents are all done runs if any parent activated it (pure nodes inline,
 * others through the queue), else is skipped, which propagates in turn.
 * Children already settled are walked too: on a replay after a crash this
 * re-dispatches whatever the crash left pending. When nothing was made
 * ready, the request completes if no node is open any more.
 */
async function afterSettled(deps: EngineDeps, request: WorkflowRequest, graph: Graph, node: NodeExecution, deadline: () => number): Promise<void> {
  if (node.status === 'failed') {
    await finishRequest(deps, request.id, 'failed', node.error ?? { code: 'node_failed', message: `Node ${node.node_id} failed.` });
    return;
  }
  if (node.status === 'stopped') return;
  const next: Dispatch = { queued: [], inline: [], walk: [node], visited: new Set([node.node_id]), openChild: false };
  while (next.walk.length > 0) {
    const parent = next.walk.shift()!;
    const edges = graph.children.get(parent.node_id) ?? [];
    if (!deps.runtime.edgeTaken && edges.some((e) => e.when !== undefined)) {
      // No JSONata here: the node worker re-runs this node's (idempotent) propagation.
      next.queued.push({ request_id: request.id, node_id: parent.node_id, node_type: parent.node_type });
      continue;
    }
    for (const edge of edges) {
      const activated = parent.status === 'completed' && (await (deps.runtime.edgeTaken ?? noPredicate)(edge.when, parent.input_data ?? {}));
      if ((graph.parents.get(edge.to)?.length ?? 0) > 1 && deps.deferredMarks) {
        // Fan-in bookkeeping is gathered for the whole invocation and written
        // once per child (see flushDeferredMarks); the child is open until then.
        deferMark(deps.deferredMarks, request, graph, edge.to, parent.node_id, activated);
        next.openChild = true;
        continue;
      }
      // A child with one parent is ready when that parent settles: a read
      // instead of the fan-in bookkeeping write.
      const child =
        (graph.parents.get(edge.to)?.length ?? 0) === 1
          ? await onlyParentDone(deps, request.id, edge.to, parent.node_id, activated)
          : await deps.requests.markParentsDone(request.id, edge.to, [parent.node_id], activated ? [parent.node_id] : []);
      if (child) await dispatchChild(deps, request, graph, child, deadline, next);
    }
  }
  await runDispatched(deps, request, deadline, next);
}

const noPredicate = async (when: string | undefined): Promise<boolean> => when === undefined;

interface Dispatch {
  queued: NodeTask[];
  inline: NodeExecution[];
  walk: NodeExecution[];
  visited: Set<string>;
  /** A child is still open (blocked on other parents): the request cannot be done yet. */
  openChild: boolean;
}

/** What to do with a child whose parent just settled (or was replayed). */
async function dispatchChild(
  deps: EngineDeps,
  request: WorkflowRequest,
  graph: Graph,
  child: NodeExecution,
  deadline: () => number,
  next: Dispatch,
): Promise<void> {
  if (child.status === 'pending') {
    next.queued.push({ request_id: request.id, node_id: child.node_id, node_type: child.node_type }); // A replay: the first enqueue may have been lost.
  } else if (child.status === 'completed' || child.status === 'skipped') {
    if (!next.visited.has(child.node_id)) next.walk.push(child);
  } else if (child.status === 'blocked' && (child.done_parents?.size ?? 0) >= child.parent_count) {
    if ((child.activated_by?.size ?? 0) === 0) {
      const skippedAt = new Date().toISOString();
      if (await deps.requests.settleNode(request.id, child.node_id, ['blocked'], { status: 'skipped', completed_at: skippedAt })) {
        const skipped = { ...child, status: 'skipped' as const, completed_at: skippedAt };
        await emitNode(deps, skipped);
        next.walk.push(skipped);
      }
    } else if (isPure(graph.nodes.get(child.node_id)) && runsHere(deps, child.node_type) && deadline() > INLINE_MARGIN_MS) {
      next.inline.push(child);
    } else {
      if (await deps.requests.transitionNode(request.id, child.node_id, ['blocked'], { status: 'pending' }))
        await emitNode(deps, { ...child, status: 'pending' });
      next.queued.push({ request_id: request.id, node_id: child.node_id, node_type: child.node_type });
    }
  } else if (child.status === 'blocked') {
    next.openChild = true;
  }
  next.visited.add(child.node_id);
}

async function runDispatched(deps: EngineDeps, request: WorkflowRequest, deadline: () => number, next: Dispatch): Promise<void> {
  if (next.queued.length > 0) await deps.enqueue(next.queued);
  for (const child of next.inline) await processNode({ request_id: request.id, node_id: child.node_id }, deps, deadline, { request, node: child });
  if (next.queued.length === 0 && next.inline.length === 0 && !next.openChild) {
    const outcome = await deps.requests.outcome(request.id);
    if (outcome.state !== 'open') await finishRequest(deps, request.id, outcome.state, outcome.state === 'failed' ? outcome.error : null);
  }
}

type DeferredMarks = Map<string, { request: WorkflowRequest; graph: Graph; childId: string; parents: Set<string>; activated: Set<string> }>;

function deferMark(marks: DeferredMarks, request: WorkflowRequest, graph: Graph, childId: string, parentId: string, activated: boolean): void {
  const key = `${request.id}/${childId}`;
  const entry = marks.get(key) ?? { request, graph, childId, parents: new Set<string>(), activated: new Set<string>() };
  entry.parents.add(parentId);
  if (activated) entry.activated.add(parentId);
  marks.set(key, entry);
}

/**
 * Writes the fan-in bookkeeping gathered during the invocation: one update
 * per child however many of its parents settled here, then dispatches the
 * children that became ready (which may gather more). Runs before the
 * invocation acknowledges its message, so a crash before it is replayed.
 */
async function flushDeferredMarks(deps: EngineDeps, deadline: () => number): Promise<void> {
  const marks = deps.deferredMarks!;
  while (marks.size > 0) {
    const batch = [...marks.values()];
    marks.clear();
    for (const entry of batch) {
      const child = await deps.requests.markParentsDone(entry.request.id, entry.childId, [...entry.parents], [...entry.activated]);
      const next: Dispatch = { queued: [], inline: [], walk: [], visited: new Set(), openChild: false };
      await dispatchChild(deps, entry.request, entry.graph, child, deadline, next);
      // A replayed child that had already settled continues the walk from there.
      for (const settled of next.walk) await afterSettled(deps, entry.request, entry.graph, settled, deadline);
      next.walk = [];
      await runDispatched(deps, entry.request, deadline, next);
    }
  }
}

/** The child of a single parent as the fan-in logic would see it: all parents done, activated or not. */
async function onlyParentDone(deps: EngineDeps, requestId: string, childId: string, parentId: string, activated: boolean): Promise<NodeExecution | undefined> {
  const child = await deps.requests.getNode(requestId, childId);
  if (!child) return undefined;
  return { ...child, done_parents: new Set([parentId]), parent_count: 1, activated_by: activated ? new Set([parentId]) : new Set<string>() };
}
