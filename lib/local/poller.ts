import { DeleteMessageBatchCommand, type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { loadHandler } from './handlers.js';
import { lambdaContext } from './lambda-runtime.js';
import type { ProvisionedQueue } from './provision.js';

/** An SQS event source mapping: which queue, how it batches, what it invokes. */
export interface EventSource {
  /** For the invocation's context and error lines. */
  name: string;
  queueUrl: string;
  batchSize: number;
  /** How long a batch may gather messages before it is handed over (the mapping's MaximumBatchingWindowInSeconds). */
  maxBatchingWindowSeconds: number;
  visibilityTimeoutSeconds: number;
  /** The invocation's deadline. */
  timeoutSeconds: number;
  /** ReportBatchItemFailures: only the failed messages stay; without it, any failure keeps the whole batch. */
  reportBatchItemFailures: boolean;
  invoke(event: SQSEvent, context: Context): Promise<SQSBatchResponse | undefined>;
}

export interface PollerOptions {
  client: SQSClient;
  source: EventSource;
  region?: string;
  onError?: (error: unknown) => void;
}

/** A queue's worker, or its dead-letter worker on the DLQ, from the handler files (`npm start`). */
export function handlerSource(queue: ProvisionedQueue, target: 'worker' | 'deadLetter'): EventSource | undefined {
  const definition = queue.definition;
  const entry = target === 'worker' ? definition.worker : definition.deadLetterWorker;
  if (!entry) return undefined;
  return {
    name: `${definition.name}-${target}`,
    queueUrl: target === 'worker' ? queue.url : queue.dlqUrl,
    batchSize: target === 'worker' ? definition.batchSize : 1,
    // Locally a batch goes as soon as a message is there: the window only adds latency, and the stack's mapping keeps it.
    maxBatchingWindowSeconds: 0,
    visibilityTimeoutSeconds: definition.visibilityTimeoutSeconds,
    timeoutSeconds: definition.workerTimeoutSeconds,
    reportBatchItemFailures: true,
    invoke: async (event, context) => {
      const handler = (await loadHandler(entry)) as (event: SQSEvent, context: unknown) => Promise<SQSBatchResponse | undefined>;
      return handler(event, context);
    },
  };
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
 * batch (up to `batchSize`, gathering for up to the batching window), invoke
 * the function, delete what succeeded. Failures reported in
 * `batchItemFailures`, or the whole batch when the invocation fails, stay in
 * the queue and come back after the visibility timeout; the queue's redrive
 * policy moves a message to the DLQ after `maxReceiveCount` receives, as in AWS.
 */
export function startPoller(options: PollerOptions): { stop(): Promise<void> } {
  const { client, source } = options;
  const region = options.region ?? 'us-east-1';
  const queueName = source.queueUrl.split('/').pop()!;
  const queueArn = `arn:aws:sqs:${region}:000000000000:${queueName}`;
  const abort = new AbortController();
  let running = true;

  const receive = async (max: number, waitSeconds: number): Promise<Message[]> => {
    const received = await client.send(
      new ReceiveMessageCommand({
        QueueUrl: source.queueUrl,
        MaxNumberOfMessages: Math.min(10, max),
        // Long polling answers as soon as a message arrives; stop() aborts the wait.
        WaitTimeSeconds: waitSeconds,
        // LOCAL_VISIBILITY_TIMEOUT_SECONDS shortens it for trying out a worker that dies (docs/api/runs.md).
        VisibilityTimeout: Number(process.env.LOCAL_VISIBILITY_TIMEOUT_SECONDS) || source.visibilityTimeoutSeconds,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
      { abortSignal: abort.signal },
    );
    return received.Messages ?? [];
  };

  const loop = (async () => {
    while (running) {
      try {
        const messages = await receive(source.batchSize, 5);
        if (messages.length === 0) continue;
        const windowEnds = Date.now() + source.maxBatchingWindowSeconds * 1000;
        while (running && messages.length < source.batchSize && Date.now() < windowEnds) {
          messages.push(...(await receive(source.batchSize - messages.length, Math.min(20, Math.ceil((windowEnds - Date.now()) / 1000)))));
        }
        const event: SQSEvent = { Records: messages.map((m) => toRecord(m, queueArn, region)) };
        let failed = new Set<string>();
        try {
          const response = await source.invoke(event, lambdaContext(source.name, source.timeoutSeconds));
          const reported = (response?.batchItemFailures ?? []).map((f) => f.itemIdentifier);
          if (reported.length > 0) {
            failed = new Set(source.reportBatchItemFailures ? reported : messages.map((m) => m.MessageId!));
            // A message kept for another try is a failure too: say so, as Lambda's log would.
            options.onError?.(
              new Error(`${source.name}: ${reported.length} of ${messages.length} messages failed and stay in the queue (${reported.join(', ')}).`),
            );
          }
        } catch (error) {
          options.onError?.(error);
          failed = new Set(messages.map((m) => m.MessageId!));
        }
        const done = messages.filter((m) => !failed.has(m.MessageId!));
        for (let i = 0; i < done.length; i += 10) {
          await client.send(
            new DeleteMessageBatchCommand({
              QueueUrl: source.queueUrl,
              Entries: done.slice(i, i + 10).map((m, j) => ({ Id: String(j), ReceiptHandle: m.ReceiptHandle! })),
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
