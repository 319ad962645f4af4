/**
 * The one queue table. The CDK stack creates each queue, its dead-letter
 * queue and the worker's event source mapping from these; the local stack
 * creates the same queues in the SQS emulator and drives the same workers.
 */
export interface QueueDefinition {
  /** Logical name; the physical name is `${QUEUE_PREFIX}${name}`. */
  name: string;
  /** Worker handler source (exports `handler(SQSEvent)`), relative to the repo root. */
  worker: string;
  /** Must exceed the worker's timeout so a running batch is not redelivered. */
  visibilityTimeoutSeconds: number;
  workerTimeoutSeconds: number;
  /** Receives before a message moves to `${name}-dlq`. */
  maxReceiveCount: number;
  batchSize: number;
  maxBatchingWindowSeconds: number;
  /** What the worker may do to the table. */
  table: 'read' | 'readwrite';
  /** Worker for the DLQ, run once per dead message (e.g. to mark work failed). */
  deadLetterWorker?: string;
  /** The worker calls Amazon Bedrock (agent nodes): the stack grants bedrock:InvokeModel. */
  invokesModels?: boolean;
}

export const NODE_TASKS_QUEUE = 'node-tasks';
export const AGENT_TASKS_QUEUE = 'agent-tasks';

/** The queue a node task goes to: model calls have their own worker (long timeouts, the model SDKs). */
export const queueFor = (nodeType: string | undefined): string => (nodeType === 'agent' ? AGENT_TASKS_QUEUE : NODE_TASKS_QUEUE);

export const QUEUES: readonly QueueDefinition[] = [
  {
    // One message per node ready to run: `{request_id, node_id}`.
    name: NODE_TASKS_QUEUE,
    worker: 'functions/workers/node-tasks.ts',
    deadLetterWorker: 'functions/workers/node-tasks-dead-letter.ts',
    workerTimeoutSeconds: 300,
    visibilityTimeoutSeconds: 360,
    maxReceiveCount: 5,
    batchSize: 10,
    maxBatchingWindowSeconds: 0,
    table: 'readwrite',
  },
  {
    // Agent nodes: one model call per task, so small batches and a long timeout.
    name: AGENT_TASKS_QUEUE,
    worker: 'functions/workers/agent-tasks.ts',
    deadLetterWorker: 'functions/workers/node-tasks-dead-letter.ts',
    workerTimeoutSeconds: 900,
    visibilityTimeoutSeconds: 960,
    maxReceiveCount: 5,
    batchSize: 5,
    maxBatchingWindowSeconds: 0,
    table: 'readwrite',
    invokesModels: true,
  },
];

/** The env variable holding a queue's URL (set by the CDK stack and the local stack). */
export const queueUrlVariable = (name: string): string => `QUEUE_URL_${name.toUpperCase().replace(/-/g, '_')}`;

export const dlqName = (queue: Pick<QueueDefinition, 'name'>): string => `${queue.name}-dlq`;
