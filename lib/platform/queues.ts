/**
 * What a queue is to the CDK stack and the local stack: each feature states
 * its queues with this shape (e.g. lib/execution/queues.ts), and lib/app/
 * queues.ts lists them all. The stack creates each queue, its dead-letter
 * queue and the worker's event source mapping; the local stack creates the
 * same queues in the SQS emulator and drives the same workers.
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
  /** Memory (MB) of the worker function; the stack's default when absent. */
  memoryMb?: number;
  /** The worker calls Amazon Bedrock (agent nodes): the stack grants bedrock:InvokeModel and bedrock:InvokeModelWithResponseStream. */
  invokesModels?: boolean;
  /** The worker derives webhook secrets: the stack lets it read the service key. */
  serviceKey?: boolean;
  /** The worker changes schedules' EventBridge Scheduler schedules (it disables one whose target is gone): the stack grants that, as to a route marked `schedules`. */
  schedules?: boolean;
}

/** The env variable holding a queue's URL (set by the CDK stack and the local stack). */
/** SQS's longest delay (15 minutes): a longer wait is chained by its receiver. */
export const MAX_SQS_DELAY_SECONDS = 900;

/** A wait as SQS takes it: whole seconds, 0 to MAX_SQS_DELAY_SECONDS. */
export const sqsDelay = (seconds: number): number => Math.min(MAX_SQS_DELAY_SECONDS, Math.max(0, Math.ceil(seconds)));

export const queueUrlVariable = (name: string): string => `QUEUE_URL_${name.toUpperCase().replace(/-/g, '_')}`;

export const dlqName = (queue: Pick<QueueDefinition, 'name'>): string => `${queue.name}-dlq`;
