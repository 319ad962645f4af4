import type { InteractionsService } from '#interactions/index.js';
import type { UsageMeter } from '#usage/index.js';
import type { WebhookNotices } from '#webhooks/index.js';
import type { EventBuffer } from './emit.js';
import type { Graph } from './graph.js';
import type { NodeExecution, WorkflowRequest } from './model.js';
import type { EnqueueNodeTasks } from './node-queue.js';
import type { WorkerRuntime } from './node-runner.js';
import type { StartDeps } from './start.js';
import type { WorkflowRequests } from './workflow-requests.js';

/** What the engine runs on, the same for every task a worker processes. Every member is required. */
export interface EngineDeps extends StartDeps {
  requests: WorkflowRequests;
  enqueue: EnqueueNodeTasks;
  interactions: InteractionsService;
  /** The node types this worker runs and whether it evaluates JSONata (lib/execution/node-runner.ts). */
  runtime: WorkerRuntime;
  /** The check before each node execution, against the usage recorded so far (lib/usage). */
  usage: Pick<UsageMeter, 'check'>;
  /** Outbound webhooks: a request's end is an event when the account takes it (finish.ts). */
  webhooks: Pick<WebhookNotices, 'listening' | 'announce'>;
}

/** Fan-in marks gathered during one invocation, written once per child (propagate.ts, flushDeferredMarks). */
export type DeferredMarks = Map<string, { request: WorkflowRequest; graph: Graph; childId: string; parents: Set<string>; activated: Set<string> }>;

/**
 * One task's processing: the engine's dependencies plus what lives only as
 * long as the task. Made fresh by processNodeTask for every message, never
 * shared between messages.
 */
export interface Invocation extends EngineDeps {
  /** The task's events, appended in one flush (emit.ts). */
  readonly events: EventBuffer;
  /** Nodes settled in this invocation: inline children take parent outputs from here instead of re-reading them. */
  readonly settled: Map<string, NodeExecution>;
  readonly deferredMarks: DeferredMarks;
  /**
   * Requests whose first node ran here, pure, and whose move to
   * `in_progress` waits for the invocation's end (executor.ts): a request
   * that ends within it is written once, from `pending` to its end.
   */
  readonly starts: Map<string, { request: WorkflowRequest; at: string }>;
  /** Milliseconds left before the invocation's deadline. */
  readonly deadline: () => number;
  /** Runs a child made ready by propagation in this same invocation (run-node.ts, supplied by the executor). */
  readonly runInline: (request: WorkflowRequest, node: NodeExecution) => Promise<void>;
}
