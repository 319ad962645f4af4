import assert from 'node:assert/strict';
import { ReceiveMessageCommand, SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, test, vi } from 'vitest';
import { ROUTES } from '#app/routes.js';
import { queuesDrained } from '../helpers/queues.js';
import { startTestStack } from '../helpers/stack.js';
import { TEST_ROUTES, testQueue } from './fixtures/routes.js';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let sqs: SQSClient;

beforeAll(async () => {
  stack = await startTestStack({ routes: [...ROUTES, ...TEST_ROUTES], queues: [testQueue()] });
  sqs = new SQSClient({ endpoint: stack.sqsEndpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
});
afterAll(async () => {
  sqs.destroy();
  await stack.stop();
});

const queueUrl = () => stack.queues[0]!.url;

async function item(id: string, sk: string) {
  const { Item } = await stack.table.db.send(new GetCommand({ TableName: stack.tableName, Key: { pk: `TESTMSG#${id}`, sk }, ConsistentRead: true }));
  return Item;
}

function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  return vi.waitFor(
    async () => {
      const value = await probe();
      if (value === undefined) throw new Error('condition not met in time');
      return value;
    },
    { timeout: timeoutMs, interval: 100 },
  );
}

describe('SQS poller (the local event source mapping)', () => {
  test('delivers messages in batches and deletes what succeeded', async () => {
    const ids = Array.from({ length: 5 }, (_, i) => `ok-${Date.now()}-${i}`);
    await sqs.send(
      new SendMessageBatchCommand({ QueueUrl: queueUrl(), Entries: ids.map((id, i) => ({ Id: String(i), MessageBody: JSON.stringify({ id }) })) }),
    );
    const records = await Promise.all(ids.map((id) => eventually(() => item(id, 'DELIVERIES'))));
    assert.ok(records.every((r) => r.deliveries === 1));
    assert.ok(
      records.some((r) => (r.batch_sizes as number[])[0]! > 1),
      'at least one batch held several messages',
    );
    // Deleted: the queue holds nothing (visible, in flight or delayed), so nothing comes back after the visibility timeout.
    await queuesDrained(stack);
    const again = await Promise.all(ids.map((id) => item(id, 'DELIVERIES')));
    assert.ok(again.every((r) => r?.deliveries === 1));
  });

  test('a reported batch item failure is redelivered, then moved to the DLQ after maxReceiveCount, where the dead-letter worker sees it', async () => {
    const okId = `mixed-ok-${Date.now()}`;
    const failId = `mixed-fail-${Date.now()}`;
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl(),
        Entries: [
          { Id: 'ok', MessageBody: JSON.stringify({ id: okId }) },
          { Id: 'fail', MessageBody: JSON.stringify({ id: failId, fail: true }) },
        ],
      }),
    );
    const dead = await eventually(() => item(failId, 'DEAD'), 30_000);
    const deliveries = await item(failId, 'DELIVERIES');
    assert.equal(deliveries?.deliveries, 3, 'maxReceiveCount receives before the DLQ');
    assert.ok(Number(dead.receive_count) >= 1);
    assert.equal((await item(okId, 'DELIVERIES'))?.deliveries, 1, 'the successful item of the batch is not redelivered');
    assert.equal(await item(okId, 'DEAD'), undefined);
  });

  test('a worker that throws fails the whole batch, which is retried', async () => {
    const id = `crash-${Date.now()}`;
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl(), MessageBody: JSON.stringify({ id, crash: true }) }));
    await eventually(() => item(id, 'DEAD'), 30_000);
    assert.equal((await item(id, 'DELIVERIES'))?.deliveries, 3);
    const leftover = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl(), WaitTimeSeconds: 0 }));
    assert.equal(leftover.Messages?.length ?? 0, 0);
  });
});

describe('response streaming stand-in', () => {
  test('a streamifyResponse handler keeps its status and headers and streams its chunks', async () => {
    const response = await fetch(`${stack.url}/v2/test/stream`);
    assert.equal(response.status, 207);
    assert.equal(response.headers.get('content-type'), 'text/event-stream');
    assert.equal(response.headers.get('x-stream-test'), 'yes');
    const reader = response.body!.getReader();
    const chunks: string[] = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks.push(new TextDecoder().decode(value));
    }
    assert.equal(chunks.join(''), 'data: 0\n\ndata: 1\n\ndata: 2\n\n');
    assert.ok(chunks.length > 1, 'arrived in more than one chunk');
  });
});

describe('service endpoints', () => {
  test('GET /healthz answers {"status":"ok"}', async () => {
    const response = await fetch(`${stack.url}/healthz`);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { status: 'ok' });
  });

  test('GET /openapi.json serves the generated OpenAPI 3.1 document', async () => {
    const response = await fetch(`${stack.url}/openapi.json`);
    assert.equal(response.status, 200);
    const document = (await response.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    assert.equal(document.openapi, '3.1.0');
    assert.ok(document.paths['/v1/api-tokens']?.post);
    assert.ok(document.paths['/v1/auth/login']?.post);
  });

  test('an oversized body is refused with 413 before any handler runs', async () => {
    const response = await fetch(`${stack.url}/v1/auth/login`, { method: 'POST', body: 'x'.repeat(10 * 1024 * 1024 + 1) });
    assert.equal(response.status, 413);
  });
});
