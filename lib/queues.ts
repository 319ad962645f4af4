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
}

// The first workers arrive with the workflow engine; the stack and the local
// poller already build whatever is listed here.
export const QUEUES: readonly QueueDefinition[] = [];

export const dlqName = (queue: Pick<QueueDefinition, 'name'>): string => `${queue.name}-dlq`;
