import { type CountingProxy, type Forward, parseJson, startCountingProxy } from './counting-proxy.js';

/** SQS bills each 64 KB chunk of a request's payload as one request. */
export const SQS_CHUNK_BYTES = 64 * 1024;

export interface SqsCall {
  action: string;
  queueUrl: string;
  startedAt: number;
  endedAt: number;
  status: number;
  messagesSent: number;
  messagesReceived: number;
  /** Message bodies and attributes sent (sends) or received (receives), in bytes. */
  payloadBytes: number;
  /** Billable requests: one per started 64 KB of payload, at least one. */
  billedRequests: number;
}

/** `inFlight` leaves ReceiveMessage out: the poller's long polls are always in flight. */
export type SqsCountingProxy = CountingProxy<SqsCall>;

const attributesSize = (attributes: unknown): number =>
  Object.entries((attributes as Record<string, Record<string, string>>) ?? {}).reduce(
    (sum, [name, value]) =>
      sum + Buffer.byteLength(name) + Buffer.byteLength(value.DataType ?? '') + Buffer.byteLength(value.StringValue ?? value.BinaryValue ?? ''),
    0,
  );

const messageSize = (body: unknown, attributes: unknown): number => Buffer.byteLength(String(body ?? '')) + attributesSize(attributes);

async function record(action: string, body: Buffer, forward: Forward) {
  const startedAt = Date.now();
  const request = parseJson(body) ?? {};
  const exchange = await forward(body);
  const answer = parseJson(exchange.body) ?? {};
  let messagesSent = 0;
  let messagesReceived = 0;
  let payloadBytes = 0;
  if (action === 'SendMessage') {
    messagesSent = 1;
    payloadBytes = messageSize(request.MessageBody, request.MessageAttributes);
  } else if (action === 'SendMessageBatch') {
    const entries = (request.Entries as Array<Record<string, unknown>>) ?? [];
    messagesSent = entries.length;
    payloadBytes = entries.reduce((sum, e) => sum + messageSize(e.MessageBody, e.MessageAttributes), 0);
  } else if (action === 'ReceiveMessage') {
    const messages = (answer.Messages as Array<Record<string, unknown>>) ?? [];
    messagesReceived = messages.length;
    payloadBytes = messages.reduce((sum, m) => sum + messageSize(m.Body, m.MessageAttributes), 0);
  }
  const call: SqsCall = {
    action,
    queueUrl: String(request.QueueUrl ?? ''),
    startedAt,
    endedAt: Date.now(),
    status: exchange.status,
    messagesSent,
    messagesReceived,
    payloadBytes,
    billedRequests: Math.max(1, Math.ceil(payloadBytes / SQS_CHUNK_BYTES)),
  };
  return { exchange, call };
}

/** An SQS emulator proxy recording every call with its message count and payload size (JSON protocol: `X-Amz-Target: AmazonSQS.<Action>`). */
export const startSqsCountingProxy = (upstream: string): Promise<SqsCountingProxy> =>
  startCountingProxy<SqsCall>({ upstream, targetPrefix: /^AmazonSQS\./, tracksInFlight: (action) => action !== 'ReceiveMessage', record });
