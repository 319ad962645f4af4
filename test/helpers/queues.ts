import assert from 'node:assert/strict';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { vi } from 'vitest';
import type { ProvisionedQueue } from '#local/provision.js';

const COUNTS = ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'] as const;

/**
 * Waits until none of the stack's queues and dead-letter queues holds a
 * message, visible, in flight or delayed: every delivery sent so far has been
 * handled and deleted (a worker deletes a message only after its handler
 * returned), and no retry is scheduled. What a test would otherwise sleep for
 * when it checks that something did *not* happen.
 */
export async function queuesDrained(stack: { sqsEndpoint: string; queues: ProvisionedQueue[] }, timeoutMs = 20_000): Promise<void> {
  const sqs = new SQSClient({ endpoint: stack.sqsEndpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  try {
    await vi.waitFor(
      async () => {
        for (const url of stack.queues.flatMap((q) => [q.url, q.dlqUrl])) {
          const { Attributes = {} } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: [...COUNTS] }));
          const left = Object.fromEntries(COUNTS.map((name) => [name, Number(Attributes[name] ?? 0)]));
          assert.ok(
            Object.values(left).every((n) => n === 0),
            `${url} still holds messages: ${JSON.stringify(left)}`,
          );
        }
      },
      { timeout: timeoutMs, interval: 100 },
    );
  } finally {
    sqs.destroy();
  }
}
