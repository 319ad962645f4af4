import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { serviceEnv } from '../config/env.js';
import { NODE_TASKS_QUEUE, queueUrlVariable } from '../queues.js';

export interface NodeTask {
  request_id: string;
  node_id: string;
}

let client: SQSClient | undefined;
const sqs = (): SQSClient =>
  (client ??= new SQSClient({
    region: serviceEnv.region,
    ...(serviceEnv.sqsEndpoint ? { endpoint: serviceEnv.sqsEndpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  }));

export type EnqueueNodeTasks = (tasks: NodeTask[], delaySeconds?: number) => Promise<void>;

/** Sends node tasks in batches of ten; any entry SQS refuses fails the call. */
export const enqueueNodeTasks: EnqueueNodeTasks = async (tasks, delaySeconds = 0) => {
  const queueUrl = process.env[queueUrlVariable(NODE_TASKS_QUEUE)];
  if (!queueUrl) throw new Error(`${queueUrlVariable(NODE_TASKS_QUEUE)} is not set`);
  for (let i = 0; i < tasks.length; i += 10) {
    const batch = tasks.slice(i, i + 10);
    const result = await sqs().send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: batch.map((task, j) => ({ Id: String(j), MessageBody: JSON.stringify(task), DelaySeconds: Math.min(900, Math.max(0, Math.ceil(delaySeconds))) })),
      }),
    );
    if (result.Failed?.length) throw new Error(`SQS refused ${result.Failed.length} node tasks: ${result.Failed[0]?.Message}`);
  }
};
