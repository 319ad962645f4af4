import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { sqsClient } from '#platform/aws/clients.js';
import { queueUrlVariable } from '#platform/queues.js';
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
  for (const [queue, queued] of byQueue) {
    const queueUrl = process.env[queueUrlVariable(queue)];
    if (!queueUrl) throw new Error(`${queueUrlVariable(queue)} is not set`);
    for (let i = 0; i < queued.length; i += 10) {
      const batch = queued.slice(i, i + 10);
      const result = await sqsClient().send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: batch.map((task, j) => ({
            Id: String(j),
            MessageBody: JSON.stringify(task),
            DelaySeconds: Math.min(900, Math.max(0, Math.ceil(delaySeconds))),
          })),
        }),
      );
      if (result.Failed?.length) throw new Error(`SQS refused ${result.Failed.length} node tasks: ${result.Failed[0]?.Message}`);
    }
  }
};
