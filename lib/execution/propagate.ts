import { METRIC } from '#platform/observability/metric-names.js';
import { countMetric } from '#platform/observability/metrics.js';
import { emitNode } from './emit.js';
import { finishRequest } from './finish.js';
import type { Graph } from './graph.js';
import type { DeferredMarks, Invocation } from './invocation.js';
import { LATE_FLUSH_MS } from './late-flush.js';
import type { NodeExecution, WorkflowRequest } from './model.js';
import { knownInput } from './node-input.js';
import type { NodeTask } from './node-queue.js';
import { unwrittenNode } from './node-skeleton.js';
import { INLINE_MARGIN_MS, isPure, runsHere } from './placement.js';

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
export async function afterSettled(deps: Invocation, request: WorkflowRequest, graph: Graph, node: NodeExecution): Promise<void> {
  if (node.status === 'failed') {
    await finishRequest(deps, request.id, 'failed', node.error ?? { code: 'node_failed', message: `Node ${node.node_id} failed.` });
    return;
  }
  if (node.status === 'stopped') return;
  const next: Dispatch = { queued: [], inline: [], walk: [node], visited: new Set([node.node_id]), openChild: false };
  while (next.walk.length > 0) {
    const parent = next.walk.shift()!;
    const edges = graph.children.get(parent.node_id) ?? [];
    for (const edge of edges) {
      const activated = parent.status === 'completed' && (await deps.runtime.edgeTaken(edge.when, parent.input_data ?? {}));
      if ((graph.parents.get(edge.to)?.length ?? 0) > 1) {
        // Fan-in bookkeeping is gathered for the whole invocation and written
        // once per child (see flushDeferredMarks); the child is open until then.
        deferMark(deps.deferredMarks, request, graph, edge.to, parent.node_id, activated);
        next.openChild = true;
        continue;
      }
      // A child with one parent is ready when that parent settles: a read
      // instead of the fan-in bookkeeping write.
      const child = await onlyParentDone(deps, request, graph, edge.to, parent, activated);
      await dispatchChild(deps, request, graph, child, next);
    }
  }
  await runDispatched(deps, request, next);
}

interface Dispatch {
  queued: NodeTask[];
  inline: NodeExecution[];
  walk: NodeExecution[];
  visited: Set<string>;
  /** A child is still open (blocked on other parents): the request cannot be done yet. */
  openChild: boolean;
}

/** What to do with a child whose parent just settled (or was replayed). */
async function dispatchChild(deps: Invocation, request: WorkflowRequest, graph: Graph, child: NodeExecution, next: Dispatch): Promise<void> {
  if (child.status === 'pending') {
    next.queued.push({ request_id: request.id, node_id: child.node_id, node_type: child.node_type }); // A replay: the first enqueue may have been lost.
  } else if (child.status === 'completed' || child.status === 'skipped') {
    if (!next.visited.has(child.node_id)) next.walk.push(child);
  } else if (child.status === 'blocked' && (child.done_parents?.size ?? 0) >= child.parent_count) {
    if ((child.activated_by?.size ?? 0) === 0) {
      const skippedAt = new Date().toISOString();
      const create = child.unwritten ? child : undefined;
      if (await deps.requests.settleNode(request.id, child.node_id, ['blocked'], { status: 'skipped', completed_at: skippedAt }, undefined, create)) {
        countMetric(METRIC.nodeExecutions, { status: 'skipped' });
        const { unwritten: _, ...skipped } = { ...child, status: 'skipped' as const, completed_at: skippedAt };
        await emitNode(deps, skipped);
        next.walk.push(skipped);
      }
    } else if (isPure(graph.nodes.get(child.node_id)) && runsHere(deps, child.node_type) && deps.deadline() > INLINE_MARGIN_MS) {
      next.inline.push(child);
    } else {
      // No write: the task itself says the node is ready, and its worker
      // claims it straight from blocked (run-node.ts). A replay sends it again.
      const input = knownInput(deps, graph, child.node_id);
      next.queued.push({ request_id: request.id, node_id: child.node_id, node_type: child.node_type, ready: true, ...(input ? { input } : {}) });
    }
  } else if (child.status === 'blocked') {
    next.openChild = true;
  }
  next.visited.add(child.node_id);
}

async function runDispatched(deps: Invocation, request: WorkflowRequest, next: Dispatch): Promise<void> {
  if (next.queued.length > 0) {
    // A lone task that is all the request goes on with here takes the request's events along, to be
    // logged with its own (emit.ts, EventBuffer: handOver): a queued chain writes one page for
    // several nodes. Otherwise the events go out before the tasks, so a lone task can be told where
    // the log continues and its first flush needs no read.
    const handed = onlyContinuation(deps, request, next) ? deps.events.handOver(request.id, HAND_OVER_LIMITS) : undefined;
    await deps.events.flush(deps.requests);
    const seq = handed?.seq ?? (next.queued.length === 1 ? deps.events.nextSeq(request.id) : undefined);
    const known = carriedRequest(deps, request);
    try {
      await deps.enqueue(
        next.queued.map((task) => ({
          ...task,
          ...(seq === undefined ? {} : { seq }),
          ...(handed ? { events: handed.events } : {}),
          ...(known ? { request: known } : {}),
        })),
      );
    } catch (error) {
      // Not sent: the events stay this invocation's to log (its end flushes them), and its message comes back.
      if (handed) deps.events.takeBack(request.id, handed);
      throw error;
    }
  }
  for (const child of next.inline) await deps.runInline(request, child);
  if (next.queued.length === 0 && next.inline.length === 0 && !next.openChild) {
    const outcome = await deps.requests.outcome(request.id);
    if (outcome.state !== 'open') await finishRequest(deps, request.id, outcome.state, outcome.state === 'failed' ? outcome.error : null, outcome.fees);
  }
}

/**
 * How long and how much of a request's events may travel with its next task:
 * no longer than a running node keeps them (late-flush.ts), and little
 * enough that a task with its input (CARRIED_INPUT_BYTES) and its request
 * (CARRIED_REQUEST_BYTES) stays one 64 KB SQS request.
 */
const HAND_OVER_LIMITS = { maxAgeMs: LATE_FLUSH_MS, maxBytes: 8 * 1024 };

/** What a task may carry of its request, in bytes of JSON: with its input and events, one 64 KB SQS request still. */
const CARRIED_REQUEST_BYTES = 4 * 1024;

/**
 * The request for its tasks to carry (run-node.ts reads it no more), unless
 * it is larger than CARRIED_REQUEST_BYTES. One whose start this invocation
 * writes at its end (executor.ts) goes as started: the task does not move
 * it again.
 */
function carriedRequest(deps: Invocation, request: WorkflowRequest): Record<string, unknown> | undefined {
  if (Buffer.byteLength(JSON.stringify(request)) > CARRIED_REQUEST_BYTES) return undefined;
  return deps.starts.has(request.id) ? { ...request, status: 'in_progress' } : { ...request };
}

/**
 * The one task queued is all this invocation does further for the request:
 * nothing runs inline after it, no fan-in mark of the request waits, and
 * its start is not left to the invocation's end; so no event of the request
 * is logged here after the events the task takes along.
 */
const onlyContinuation = (deps: Invocation, request: WorkflowRequest, next: Dispatch): boolean =>
  !flushingMarks.has(deps) &&
  next.queued.length === 1 &&
  next.inline.length === 0 &&
  !deps.starts.has(request.id) &&
  ![...deps.deferredMarks.values()].some((mark) => mark.request.id === request.id);

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
export async function flushDeferredMarks(deps: Invocation): Promise<void> {
  const marks = deps.deferredMarks;
  // A batch may hold several children of one request: none of them is its only continuation.
  flushingMarks.add(deps);
  try {
    await flushMarks(deps, marks);
  } finally {
    flushingMarks.delete(deps);
  }
}

/** Invocations writing their fan-in marks (flushDeferredMarks): they hand no events on. */
const flushingMarks = new WeakSet<Invocation>();

async function flushMarks(deps: Invocation, marks: DeferredMarks): Promise<void> {
  while (marks.size > 0) {
    const batch = [...marks.values()];
    marks.clear();
    for (const entry of batch) {
      const skeleton = unwrittenNode(entry.request, entry.graph, entry.childId);
      // Every parent settled here, in this invocation: nothing else can have reached the child (only a parent's
      // settle does, and those writes were ours), so its readiness is known without writing the mark. A crash
      // before the child settles replays its parents' propagation, which marks it then.
      // Not after a redrive: the redrive wrote the child's new execution before any parent settled (redrive.ts).
      const allHere = !entry.request.redrive_count && entry.parents.size === skeleton.parent_count && [...entry.parents].every((id) => deps.settled.has(id));
      const child = allHere
        ? { ...skeleton, done_parents: new Set(entry.parents), activated_by: new Set(entry.activated) }
        : // Creates the child's item if this is the first change to reach it.
          await deps.requests.markParentsDone(entry.request.id, skeleton, [...entry.parents], [...entry.activated]);
      const next: Dispatch = { queued: [], inline: [], walk: [], visited: new Set(), openChild: false };
      await dispatchChild(deps, entry.request, entry.graph, child, next);
      // A replayed child that had already settled continues the walk from there.
      for (const settled of next.walk) await afterSettled(deps, entry.request, entry.graph, settled);
      next.walk = [];
      await runDispatched(deps, entry.request, next);
    }
  }
}

/**
 * The child of a single parent as the fan-in logic would see it: all parents
 * done, activated or not. When this invocation settled the parent itself
 * (`settled`), nothing can have reached the child yet (only its parent's
 * settling does, and that write was ours), so it is not read; unless the
 * request was redriven, whose redrive wrote its children's new executions.
 */
async function onlyParentDone(deps: Invocation, request: WorkflowRequest, graph: Graph, childId: string, parent: NodeExecution, activated: boolean) {
  // After a redrive the child has an item already: the execution the redrive made of it (redrive.ts).
  const fresh = !request.redrive_count && deps.settled.get(parent.node_id) === parent;
  const child = (fresh ? undefined : await deps.requests.getNode(request.id, childId)) ?? unwrittenNode(request, graph, childId);
  return { ...child, done_parents: new Set([parent.node_id]), parent_count: 1, activated_by: activated ? new Set([parent.node_id]) : new Set<string>() };
}
