import assert from 'node:assert/strict';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { NODE_TASK_MESSAGE, type NodeTask } from '#execution/queue-messages.js';
import { logger } from '#platform/observability/logger.js';
import { queueWorker } from '#platform/queue-worker.js';
import { writtenLines } from '../helpers/metrics.js';

const context = { awsRequestId: 'l-1', functionName: 'fn', getRemainingTimeInMillis: () => 1000 } as Context;
const ARN = 'arn:aws:sqs:eu-west-1:123456789012:svc-node-tasks';
const record = (messageId: string, body: string) => ({ messageId, body, eventSourceARN: ARN, attributes: { ApproximateReceiveCount: '1' } }) as SQSRecord;

type LogLine = Record<string, unknown>;
async function run(records: SQSRecord[], handle: (task: NodeTask) => Promise<unknown> = async () => undefined) {
  const worker = queueWorker(NODE_TASK_MESSAGE, handle);
  let response: unknown;
  const lines = (await writtenLines(async () => (response = await worker({ Records: records } as SQSEvent, context))))
    .map((line) => JSON.parse(line) as LogLine)
    .filter((line) => 'level' in line);
  return { response, lines, malformed: lines.filter((line) => String(line.message).startsWith('malformed queue message')) };
}

describe('queueWorker validates each message with its queue’s schema', () => {
  // The unit tier runs at CRITICAL (vitest.config.ts); the scoped loggers are children of the root and take its level.
  beforeAll(() => logger().setLogLevel('INFO'));
  afterAll(() => logger().setLogLevel('CRITICAL'));

  test('a body that is not JSON and one that fails the schema are batch item failures, each with one error line; the good one is processed', async () => {
    const seen: NodeTask[] = [];
    const { response, malformed } = await run(
      [
        record('m-good', JSON.stringify({ request_id: 'req-1', node_id: 'a', ready: true, seq: 4, input: { x: 1 }, added_later: 'kept' })),
        record('m-not-json', 'request_id=req-2&node_id=b'),
        record('m-invalid', JSON.stringify({ request_id: 42, node_id: 'c', account_id: 'acc-9', input: { secret: 'do-not-log' } })),
      ],
      async (task) => {
        seen.push(task);
      },
    );

    assert.deepEqual(response, { batchItemFailures: [{ itemIdentifier: 'm-not-json' }, { itemIdentifier: 'm-invalid' }] });
    assert.deepEqual(
      seen,
      [{ request_id: 'req-1', node_id: 'a', ready: true, seq: 4, input: { x: 1 }, added_later: 'kept' }],
      'typed, and a field the schema does not name passes',
    );
    assert.equal(malformed.length, 2);
    const [notJson, invalid] = [malformed.find((l) => l.message_id === 'm-not-json')!, malformed.find((l) => l.message_id === 'm-invalid')!];
    for (const line of [notJson, invalid]) {
      assert.equal(line.level, 'ERROR');
      assert.equal(line.message_kind, 'node task');
      assert.equal(line.queue, 'svc-node-tasks');
      assert.equal(line.request_id, line.message_id, 'in the record’s log scope');
    }
    assert.deepEqual(notJson.issues, [{ path: '', message: 'not JSON' }]);
    assert.equal(notJson.body_excerpt, 'request_id=req-2&node_id=b');
    assert.deepEqual(invalid.issues, [{ path: 'request_id', message: 'expected string, received number' }]);
    assert.equal(invalid.account_id, 'acc-9', 'the account the parsed message names');
    assert.ok(!JSON.stringify(invalid).includes('do-not-log'), 'never the body');
  });

  test('each issue names its path, without the value; a body that is not an object fails at the root', async () => {
    const { response, malformed } = await run([
      record('m-1', JSON.stringify({ node_id: 7, ready: false, input: 'x' })),
      record('m-2', 'null'),
      record('m-3', '[1, 2]'),
    ]);

    assert.deepEqual(response, { batchItemFailures: ['m-1', 'm-2', 'm-3'].map((itemIdentifier) => ({ itemIdentifier })) });
    const issues = Object.fromEntries(malformed.map((line) => [line.message_id, line.issues]));
    assert.deepEqual(issues['m-1'], [
      { path: 'request_id', message: 'expected string, received nothing' },
      { path: 'node_id', message: 'expected string, received number' },
      { path: 'ready', message: 'expected true' },
      { path: 'input', message: 'expected record, received string' },
    ]);
    assert.deepEqual(issues['m-2'], [{ path: '', message: 'expected object, received null' }]);
    assert.deepEqual(issues['m-3'], [{ path: '', message: 'expected object, received array' }]);
  });

  test('a long body that is not JSON is logged as a short excerpt only', async () => {
    const body = `<html>${'x'.repeat(10_000)}</html>`;
    const { response, malformed } = await run([record('m-long', body)]);

    assert.deepEqual(response, { batchItemFailures: [{ itemIdentifier: 'm-long' }] });
    assert.equal(malformed.length, 1);
    assert.equal(malformed[0]!.body_excerpt, body.slice(0, 80));
    assert.equal(malformed[0]!.body_length, body.length);
  });

  test('a valid message whose handler throws is a batch item failure without a malformed-message line', async () => {
    const { response, malformed } = await run([record('m-throws', JSON.stringify({ request_id: 'r', node_id: 'n' }))], async () => {
      throw new Error('table gone');
    });

    assert.deepEqual(response, { batchItemFailures: [{ itemIdentifier: 'm-throws' }] });
    assert.deepEqual(malformed, []);
  });
});
