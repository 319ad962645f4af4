import { NODE_EXECUTION_FEE_MICRO_USD, nodeCostMicroUsd } from '#platform/config/prices.js';
import { Failure } from '#platform/failure.js';
import { jsonDepth } from '#platform/json-depth.js';
import { METRIC } from '#platform/observability/metric-names.js';
import { countMetric } from '#platform/observability/metrics.js';
import type { WorkflowNode } from '#workflows/index.js';
import { openApproval, resumeApproval } from './approval.js';
import { resumeChild, startChild } from './child-workflow.js';
import { emitNode, emitRequest } from './emit.js';
import { announceEnded, settleAs } from './finish.js';
import { type Graph, graphOf } from './graph.js';
import type { EngineDeps, Invocation } from './invocation.js';
import { flushWhenLate } from './late-flush.js';
import {
  extraSinceRedrive,
  type FailureInfo,
  feesSinceRedrive,
  isTerminalNode,
  isTerminalRequest,
  type NodeCost,
  type NodeExecution,
  type WorkflowRequest,
} from './model.js';
import { NodeFailure } from './node-failure.js';
import { nodeInput } from './node-input.js';
import type { NodeTask } from './node-queue.js';
import type { WorkerRuntime } from './node-runner.js';
import { unwrittenNode } from './node-skeleton.js';
import { isPure, runsHere } from './placement.js';
import { afterSettled } from './propagate.js';
import { retryDelayMs, shouldRetry } from './retry.js';
import { RetryLater } from './retry-later.js';

/**
 * Running one node: claim it (or, for a pure node, compute and settle it in
 * one conditional write), run it under its timeout, settle it, and hand the
 * settled node to propagation (propagate.ts). Every state change is a
 * conditional write, so a duplicate or redelivered message either finds the
 * work done or loses the race and changes nothing.
 */

/** A node execution is one DynamoDB item (400 KB at most); its output must leave room for the rest. */
export const MAX_OUTPUT_BYTES = 300_000;
/**
 * How deep a node output may nest: DynamoDB holds 31 levels under an attribute, and an output is wrapped in its
 * children's input by parent id, a `workflow` node's output holding its child's outputs by id (3 levels over it
 * in the input of a node after a `workflow` node). Measured first: serializing a far deeper value overflows the stack.
 */
export const MAX_OUTPUT_DEPTH = 28;
/** Why an output cannot be stored, if it cannot. */
const unstorableOutput = (output: unknown): NodeFailure | undefined => {
  if (jsonDepth(output, MAX_OUTPUT_DEPTH) > MAX_OUTPUT_DEPTH) {
    return new NodeFailure('output_too_deep', `The node output nests objects and arrays more than ${MAX_OUTPUT_DEPTH} levels deep.`, false);
  }
  if (Buffer.byteLength(JSON.stringify(output ?? null)) > MAX_OUTPUT_BYTES) {
    return new NodeFailure('output_too_large', `The node output exceeds ${MAX_OUTPUT_BYTES} bytes of JSON.`, false);
  }
  return undefined;
};

/** Leave the invocation a margin to record the outcome, but never eat the whole budget. */
const nodeTimeoutMs = (definition: WorkflowNode, budgetMs: number): number =>
  Math.max(1, Math.min(definition.timeout_ms ?? 300_000, budgetMs - Math.min(5_000, budgetMs / 5)));

/** What a node records of an error: a Failure's code and message, anything else as internal. */
const failureInfo = (error: unknown): FailureInfo =>
  error instanceof Failure ? { code: error.code, message: error.message } : { code: 'internal_error', message: 'The node failed unexpectedly.' };

/**
 * What a node execution cost (decisions.md, Money): the flat fee, plus the
 * tokens of the model an agent node called (its output's `{model, usage}`).
 */
export function nodeCost(request: WorkflowRequest, output: unknown): NodeCost {
  const { model, usage } = (output ?? {}) as { model?: unknown; usage?: { input_tokens?: unknown; output_tokens?: unknown } };
  const inputTokens = Number.isSafeInteger(usage?.input_tokens) ? Number(usage!.input_tokens) : 0;
  const outputTokens = Number.isSafeInteger(usage?.output_tokens) ? Number(usage!.output_tokens) : 0;
  const called = typeof model === 'string' && usage !== undefined;
  return {
    accountId: request.account_id,
    costMicroUsd: nodeCostMicroUsd(called ? { model, input_tokens: inputTokens, output_tokens: outputTokens } : undefined),
    inputTokens,
    outputTokens,
  };
}

/**
 * Checked before each node execution against all the usage so far: a full
 * window nothing funds, or extra usage that ran the wallet dry (the
 * request's own unpaid extra counted), fails the node for good; what ran
 * before stays (the unpaid extra as the request stands: a copy that came
 * with the task is read again when it decides). A node's flat fee counts
 * from the moment the node settles, though it reaches the windows only with
 * the request's end (settleNode's `unrecorded_micro_usd`): the request's
 * fees so far are pending usage, at most one fee for each of its other
 * nodes, summed from its node items only when that bound would not leave
 * room (lib/usage, check).
 */
async function unfunded(deps: Invocation, request: WorkflowRequest, graph: Graph): Promise<NodeFailure | undefined> {
  // What earlier ends of a redriven request recorded and debited is not owed any more (redrive_base).
  const failure = await deps.usage.check(request.account_id, {
    unpaidExtraMicroUsd: extraSinceRedrive(request, request.extra_micro_usd ?? 0),
    // A copy handed on with the task may be behind on it: read where the wallet decides.
    ...(copies.has(request) ? { unpaidExtraNow: async () => extraSinceRedrive(request, (await deps.requests.get(request.id))?.extra_micro_usd ?? 0) } : {}),
    pending: {
      atMost: (graph.nodes.size - 1) * NODE_EXECUTION_FEE_MICRO_USD,
      exact: async () => feesSinceRedrive(request, await deps.requests.unrecordedFees(request.id)),
    },
  });
  return failure && new NodeFailure(failure.code, failure.message, false);
}

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

/** The request moved to `in_progress` once (guarded: one that moved or ended meanwhile stays as it is), and its stream told. */
export async function markRequestStarted(deps: Invocation, request: WorkflowRequest, at: string): Promise<void> {
  if (request.status !== 'pending') return;
  deps.starts.delete(request.id);
  const started = await deps.requests.transitionRequest(request.id, ['pending'], { status: 'in_progress', started_at: at });
  if (started) {
    request.status = 'in_progress';
    await emitRequest(deps, started);
  }
}

/**
 * `known` is given for inline children: the request and the child as the
 * parent's invocation just read them, so nothing is read again.
 */
export async function runNode(task: NodeTask, deps: Invocation, known?: { request: WorkflowRequest; node: NodeExecution }): Promise<void> {
  const inline = known !== undefined;
  // The task's copy of its request is enough for a claim; a claim refused reads it (its status decides then).
  const copy = known ? undefined : requestCopy(task);
  let request = known?.request ?? copy ?? (await deps.requests.get(task.request_id));
  if (!request) return;
  const graph = await loadGraph(deps, request);
  if (!graph.nodes.has(task.node_id)) return;
  let node = known?.node;
  if (!node) {
    const told = await claimAsTold(deps, task, request, graph);
    if (told.claimed) {
      await runClaimed(deps, request, graph, told.claimed, told);
      return;
    }
    if (copy) request = await deps.requests.get(task.request_id);
    if (!request) return;
    node = told.current ?? unwrittenNode(request, graph, task.node_id);
  }

  if (isTerminalRequest(request.status)) {
    // An execution a redrive made before moving the request back is that redrive's to run (redrive.ts).
    if ((node.redrive ?? 0) > (request.redrive_count ?? 0)) return;
    // Nodes the end stopped are not its own: their tasks were queued before it.
    if (node.status === 'completed' || node.status === 'failed') await announceEnded(deps, request);
    else await settleAs(deps, node, 'stopped', null);
    return;
  }
  if (isTerminalNode(node.status)) {
    await afterSettled(deps, request, graph, node);
    return;
  }
  if (node.status === 'waiting') {
    const resumed = await resumeApproval(deps, request, node);
    if (resumed) await afterSettled(deps, request, graph, resumed);
    return;
  }
  // A blocked node runs only when the parent that made it ready runs it
  // inline or sends a task that says so (propagate.ts, dispatchChild).
  if (node.status === 'blocked' && !inline && !task.ready) return;
  if (node.status === 'in_progress' && node.child_request_id) {
    const settled = await resumeChild(deps, request, node);
    if (settled) await afterSettled(deps, request, graph, settled);
    return;
  }
  // A task on the wrong queue (another worker runs this type) is passed on.
  if (!runsHere(deps, node.node_type)) {
    await deps.enqueue([{ ...task, node_type: node.node_type }]);
    return;
  }
  const definition = graph.nodes.get(node.node_id);
  if (isPure(definition) && node.status !== 'in_progress') {
    await runPure(deps, request, graph, definition, node, task.input);
    return;
  }

  const now = Date.now();
  if (node.status === 'in_progress' && (node.lease_expires_at ?? 0) > now) throw new RetryLater(`node ${node.node_id} is running elsewhere`);

  if (!definition) throw new Error(`node ${node.node_id} is not in version ${request.workflow_version_id}`);
  const input = task.input ?? (await nodeInput(deps, request, graph, node.node_id));
  const timeoutMs = nodeTimeoutMs(definition, deps.deadline());
  const claimed = await deps.requests.transitionNode(request.id, node.node_id, ['pending', 'blocked', 'in_progress'], claimSet(now, input, timeoutMs), {
    incrementAttempt: true,
    leaseExpiredBefore: now,
    ...(node.unwritten ? { create: node } : {}),
  });
  if (!claimed) throw new RetryLater(`node ${node.node_id} was claimed by another delivery`);
  await runClaimed(deps, request, graph, claimed, { input, timeoutMs, now });
}

/** Requests known from a task's copy (and the nodes run inline after it): their unpaid extra may be behind. */
const copies = new WeakSet<WorkflowRequest>();

/** The request a task carries (propagate.ts, runDispatched), when it is the task's. */
function requestCopy(task: NodeTask): WorkflowRequest | undefined {
  const copy = task.request;
  if (!copy || copy.id !== task.request_id || typeof copy.account_id !== 'string' || typeof copy.workflow_version_id !== 'string') return undefined;
  const request = copy as unknown as WorkflowRequest;
  copies.add(request);
  return request;
}

/** What a claim sets: the node in progress under a lease that outlasts its timeout. */
const claimSet = (now: number, input: Record<string, unknown>, timeoutMs: number) => ({
  status: 'in_progress' as const,
  started_at: new Date(now).toISOString(),
  input_data: input,
  lease_expires_at: now + timeoutMs + 10_000,
  error: null,
});

/**
 * The status a queued task says its node is in, when that is enough to
 * claim it unread: `blocked` for a task marked ready (the parent that found
 * it ready sent it, propagate.ts; its item may not exist yet), `pending` for
 * a task that names its node type (an entry node's first task, a retry, a
 * replay of a pending child). A task that resumes a waiting or a `workflow`
 * node names no type, and its node is read.
 */
const toldStatus = (task: NodeTask): 'blocked' | 'pending' | undefined => (task.ready ? 'blocked' : task.node_type !== undefined ? 'pending' : undefined);

/**
 * A queued task's node claimed from the status the task says it is in,
 * without reading it first: the claim's conditional write is the check. A
 * claim refused (a redelivered or duplicate task, a node another delivery
 * holds or the request's end stopped) brings the node as it stands back
 * with the refusal, for runNode to go on from as if it had read it. Pure
 * nodes, types another worker runs, ended requests and tasks that tell
 * nothing are read as before.
 */
async function claimAsTold(
  deps: Invocation,
  task: NodeTask,
  request: WorkflowRequest,
  graph: Graph,
): Promise<({ claimed: NodeExecution } & ClaimContext) | { claimed: undefined; current: NodeExecution | undefined }> {
  const told = toldStatus(task);
  const definition = graph.nodes.get(task.node_id);
  const pure: boolean = isPure(definition);
  if (told === undefined || !definition || pure || !runsHere(deps, definition.type) || isTerminalRequest(request.status)) {
    return { claimed: undefined, current: await deps.requests.getNode(task.request_id, task.node_id) };
  }
  const now = Date.now();
  const input = task.input ?? (await nodeInput(deps, request, graph, task.node_id));
  const timeoutMs = nodeTimeoutMs(definition, deps.deadline());
  const result = await deps.requests.claimNode(request.id, task.node_id, [told], claimSet(now, input, timeoutMs), {
    incrementAttempt: true,
    leaseExpiredBefore: now,
    ...(told === 'blocked' ? { create: unwrittenNode(request, graph, task.node_id) } : {}),
  });
  return result.claimed ? { claimed: result.claimed, input, timeoutMs, now } : result;
}

interface ClaimContext {
  input: Record<string, unknown>;
  timeoutMs: number;
  /** When it was claimed (epoch ms). */
  now: number;
}

/** A claimed node run under its timeout and settled, or handed to what runs its type (an approval, a child request). */
async function runClaimed(
  deps: Invocation,
  request: WorkflowRequest,
  graph: Graph,
  claimed: NodeExecution,
  { input, timeoutMs, now }: ClaimContext,
): Promise<void> {
  const definition = graph.nodes.get(claimed.node_id);
  if (!definition) throw new Error(`node ${claimed.node_id} is not in version ${request.workflow_version_id}`);
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
  const refused = await unfunded(deps, request, graph);
  if (refused) {
    await handleFailure(deps, request, graph, definition, claimed, refused, false);
    return;
  }
  const late = flushWhenLate(deps);
  let output: unknown;
  try {
    output = await runWithTimeout(deps.runtime, definition, input, timeoutMs, request, claimed);
  } catch (error) {
    await late.done();
    await handleFailure(deps, request, graph, definition, claimed, error, true);
    return;
  }
  await late.done();
  const unstorable = unstorableOutput(output);
  if (unstorable) {
    await handleFailure(deps, request, graph, definition, claimed, unstorable, true);
    return;
  }
  const completedAt = new Date().toISOString();
  const settled = await deps.requests.settleNode(
    request.id,
    claimed.node_id,
    ['in_progress'],
    { status: 'completed', output_data: output, completed_at: completedAt },
    claimed.attempt_count,
    undefined,
    nodeCost(request, output),
  );
  if (!settled) return; // Stopped meanwhile, or the lease was taken over: that delivery owns the node.
  countMetric(METRIC.nodeExecutions, { status: 'completed' });
  const done = { ...claimed, status: 'completed' as const, output_data: output, completed_at: completedAt };
  deps.settled.set(done.node_id, done);
  await emitNode(deps, done);
  await afterSettled(deps, request, graph, done);
}

/**
 * A pure node (PURE_TYPES, no retry policy): computed, then settled straight
 * from pending (or blocked, when run inline) to completed or failed in one
 * conditional write. Its stream shows that one change.
 */
async function runPure(
  deps: Invocation,
  request: WorkflowRequest,
  graph: Graph,
  definition: WorkflowNode,
  node: NodeExecution,
  carried: Record<string, unknown> | undefined,
) {
  const startedAt = new Date().toISOString();
  // Written at the invocation's end, or with the request's end if that comes first (executor.ts).
  if (request.status === 'pending' && !deps.starts.has(request.id)) deps.starts.set(request.id, { request, at: startedAt });
  const input = carried ?? (await nodeInput(deps, request, graph, node.node_id));
  const timeoutMs = nodeTimeoutMs(definition, deps.deadline());
  const attempt = node.attempt_count + 1;
  let set: Partial<NodeExecution> & { status: 'completed' | 'failed' };
  let output: unknown;
  const refused = await unfunded(deps, request, graph);
  try {
    if (refused) throw refused;
    output = await runWithTimeout(deps.runtime, definition, input, timeoutMs, request, { ...node, input_data: input, attempt_count: attempt });
    const unstorable = unstorableOutput(output);
    if (unstorable) throw unstorable;
    set = {
      status: 'completed',
      input_data: input,
      output_data: output,
      attempt_count: attempt,
      started_at: startedAt,
      completed_at: new Date().toISOString(),
    };
  } catch (error) {
    set = {
      status: 'failed',
      input_data: input,
      error: failureInfo(error),
      attempt_count: attempt,
      started_at: startedAt,
      failed_at: new Date().toISOString(),
    };
  }
  // A node refused for its funding did not execute: it costs nothing.
  const cost = refused ? undefined : nodeCost(request, output);
  if (!(await deps.requests.settleNode(request.id, node.node_id, ['pending', 'blocked'], set, node.attempt_count, node.unwritten ? node : undefined, cost)))
    return;
  countMetric(METRIC.nodeExecutions, { status: set.status });
  const { unwritten: _, ...settled } = { ...node, ...set };
  deps.settled.set(node.node_id, settled);
  await emitNode(deps, settled);
  await afterSettled(deps, request, graph, settled);
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

/** `executed`: the node ran (and failed), so its final failure costs the flat fee; a node refused before running costs nothing. */
async function handleFailure(
  deps: Invocation,
  request: WorkflowRequest,
  graph: Graph,
  definition: WorkflowNode,
  node: NodeExecution,
  error: unknown,
  executed = false,
) {
  const failure = failureInfo(error);
  // A redriven execution has the node's retry policy to itself: its attempts count on from the earlier ones (attempt_count), its retries from its own.
  const attempts = node.attempt_count - (node.attempts_before ?? 0);
  if (shouldRetry(definition.retry, attempts, error)) {
    const requeued = await deps.requests.transitionNode(request.id, node.node_id, ['in_progress'], { status: 'pending', error: failure, lease_expires_at: 0 });
    if (requeued) {
      await emitNode(deps, requeued);
      await deps.enqueue([{ request_id: request.id, node_id: node.node_id, node_type: node.node_type }], retryDelayMs(definition.retry!, attempts) / 1000);
    }
    return;
  }
  const failedAt = new Date().toISOString();
  if (
    !(await deps.requests.settleNode(
      request.id,
      node.node_id,
      ['in_progress'],
      { status: 'failed', error: failure, failed_at: failedAt },
      node.attempt_count,
      undefined,
      executed ? nodeCost(request, undefined) : undefined,
    ))
  )
    return;
  countMetric(METRIC.nodeExecutions, { status: 'failed' });
  const failed = { ...node, status: 'failed' as const, error: failure, failed_at: failedAt };
  await emitNode(deps, failed);
  // A failed node fails the request: nothing runs inline after it.
  await afterSettled(deps, request, graph, failed);
}
