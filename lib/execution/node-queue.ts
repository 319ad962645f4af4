import { sendAllToQueue } from '#platform/aws/send-to-queue.js';
import { queueFor } from './queues.js';

export interface NodeTask {
  request_id: string;
  node_id: string;
  /** Routes the task: `agent` nodes go to the agent queue, everything else to node-tasks. */
  node_type?: string;
  /** Sent by the parent that found the node ready: it may be claimed straight from `blocked` (propagate.ts). */
  ready?: true;
  /** Where the request's event log continued when the task was sent, so its first flush needs no read (emit.ts). */
  seq?: number;
  /** The node's input, when the invocation that sent the task settled all its parents and it is small (node-input.ts). */
  input?: Record<string, unknown>;
}

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
