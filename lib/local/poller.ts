import { DeleteMessageBatchCommand, type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { loadHandler } from './handlers.js';
import { lambdaContext } from './lambda-runtime.js';
import type { ProvisionedQueue } from './provision.js';

export interface PollerOptions {
  client: SQSClient;
  queue: ProvisionedQueue;
  /** Which handler to drive: the queue's worker, or its dead-letter worker on the DLQ. */
  target: 'worker' | 'deadLetter';
  region?: string;
  onError?: (error: unknown) => void;
}

function toRecord(message: Message, queueArn: string, region: string): SQSRecord {
  const attributes = message.Attributes ?? {};
  return {
    messageId: message.MessageId!,
    receiptHandle: message.ReceiptHandle!,
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      ...(attributes.MessageGroupId ? { MessageGroupId: attributes.MessageGroupId } : {}),
    },
    messageAttributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
        name,
        {
          dataType: value.DataType ?? 'String',
          stringValue: value.StringValue,
          binaryValue: value.BinaryValue ? Buffer.from(value.BinaryValue).toString('base64') : undefined,
        },
      ]),
    ),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
}

/**
 * Drives a worker the way a Lambda SQS event source mapping does: receive a
 * batch (up to `batchSize`, waiting up to the batching window), invoke the
 * handler, delete what succeeded. Failures reported in `batchItemFailures`,
 * or the whole batch when the handler throws, stay in the queue and come
 * back after the visibility timeout; the queue's redrive policy moves a
 * message to the DLQ after `maxReceiveCount` receives, as in AWS.
 */
export function startPoller(options: PollerOptions): { stop(): Promise<void> } {
  const { client, queue } = options;
  const definition = queue.definition;
  const entry = options.target === 'worker' ? definition.worker : definition.deadLetterWorker;
  const queueUrl = options.target === 'worker' ? queue.url : queue.dlqUrl;
  const region = options.region ?? 'us-east-1';
  const queueName = queueUrl.split('/').pop()!;
  const queueArn = `arn:aws:sqs:${region}:000000000000:${queueName}`;
  const abort = new AbortController();
  let running = true;

  const loop = (async () => {
    if (!entry) return;
    while (running) {
      let messages: Message[] = [];
      try {
        const received = await client.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: Math.min(10, definition.batchSize),
            // Long polling answers as soon as a message arrives; stop() aborts the wait.
            WaitTimeSeconds: 5,
            // LOCAL_VISIBILITY_TIMEOUT_SECONDS shortens it for trying out a worker that dies (README, Runs).
            VisibilityTimeout: Number(process.env.LOCAL_VISIBILITY_TIMEOUT_SECONDS) || definition.visibilityTimeoutSeconds,
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
          { abortSignal: abort.signal },
        );
        messages = received.Messages ?? [];
        if (messages.length === 0) continue;
        const handler = (await loadHandler(entry)) as (event: SQSEvent, context: unknown) => Promise<SQSBatchResponse | undefined>;
        const event: SQSEvent = { Records: messages.map((m) => toRecord(m, queueArn, region)) };
        let failed = new Set<string>();
        try {
          const response = await handler(event, lambdaContext(`${definition.name}-${options.target}`, definition.workerTimeoutSeconds));
          failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
        } catch (error) {
          options.onError?.(error);
          failed = new Set(messages.map((m) => m.MessageId!));
        }
        const done = messages.filter((m) => !failed.has(m.MessageId!));
        if (done.length > 0) {
          await client.send(
            new DeleteMessageBatchCommand({
              QueueUrl: queueUrl,
              Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
            }),
          );
        }
      } catch (error) {
        if (!running) break;
        options.onError?.(error);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  })();

  return {
    stop: async () => {
      running = false;
      abort.abort();
      await loop.catch(() => undefined);
    },
  };
}
