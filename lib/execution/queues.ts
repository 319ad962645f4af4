import type { QueueDefinition } from '#platform/queues.js';

/** The engine's queues: node tasks, and agent nodes on their own worker. */
export const NODE_TASKS_QUEUE = 'node-tasks';
export const AGENT_TASKS_QUEUE = 'agent-tasks';

/** The queue a node task goes to: model calls have their own worker (long timeouts, the model SDKs). */
export const queueFor = (nodeType: string | undefined): string => (nodeType === 'agent' ? AGENT_TASKS_QUEUE : NODE_TASKS_QUEUE);

export const EXECUTION_QUEUES: readonly QueueDefinition[] = [
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
