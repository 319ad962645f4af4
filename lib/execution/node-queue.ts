import { sendAllToQueue } from '#platform/aws/send-to-queue.js';
import type { NodeTask } from './queue-messages.js';
import { queueFor } from './queues.js';

/** A node task (its schema, for the workers, is in queue-messages.ts). */
export type { NodeTask } from './queue-messages.js';

export type EnqueueNodeTasks = (tasks: NodeTask[], delaySeconds?: number) => Promise<void>;

/** Sends node tasks in batches of ten; any entry SQS refuses fails the call. */
export const enqueueNodeTasks: EnqueueNodeTasks = async (tasks, delaySeconds = 0) => {
  const byQueue = new Map<string, NodeTask[]>();
  for (const task of tasks) {
    const queue = queueFor(task.node_type);
    byQueue.set(queue, [...(byQueue.get(queue) ?? []), task]);
  }
  for (const [queue, queued] of byQueue) await sendAllToQueue(queue, queued, delaySeconds);
};
