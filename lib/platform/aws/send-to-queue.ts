import { SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { queueUrlVariable, sqsDelay } from '#platform/queues.js';
import { sqsClient } from './clients.js';

/** The URL of one of the service's queues (lib/platform/queues.ts), from the environment the stack and `npm start` set. */
export function queueUrl(queue: string): string {
  const variable = queueUrlVariable(queue);
  const url = process.env[variable];
  if (!url) throw new Error(`${variable} is not set`);
  return url;
}

/** Sends one message of JSON to the queue, after `delaySeconds` (clamped to SQS's 0–900). */
export async function sendToQueue(queue: string, body: unknown, delaySeconds = 0): Promise<void> {
  const delay = sqsDelay(delaySeconds);
  await sqsClient().send(new SendMessageCommand({ QueueUrl: queueUrl(queue), MessageBody: JSON.stringify(body), DelaySeconds: delay }));
}

/** Sends messages of JSON to the queue, ten a call; any message SQS refuses fails the whole send (the caller's retry sends all again). */
export async function sendAllToQueue(queue: string, bodies: readonly unknown[], delaySeconds = 0): Promise<void> {
  const url = queueUrl(queue);
  const delay = sqsDelay(delaySeconds);
  for (let i = 0; i < bodies.length; i += 10) {
    const batch = bodies.slice(i, i + 10);
    const result = await sqsClient().send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: batch.map((body, j) => ({ Id: String(j), MessageBody: JSON.stringify(body), DelaySeconds: delay })),
      }),
    );
    if (result.Failed?.length) throw new Error(`SQS refused ${result.Failed.length} of ${batch.length} messages to ${queue}: ${result.Failed[0]?.Message}`);
  }
}
