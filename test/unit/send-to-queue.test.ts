import assert from 'node:assert/strict';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, test, vi } from 'vitest';
import { sendToQueue } from '#platform/aws/send-to-queue.js';
import { queueUrlVariable } from '#platform/queues.js';
import { wakeRun } from '#runs/wake.js';

// Every SQSClient, the one lib/platform/aws/clients.ts builds for the function included.
const sqs = mockClient(SQSClient);
const URL = 'http://sqs.local/000000000000/run-tasks-small';

describe('sendToQueue (SQS through the production client)', () => {
  beforeEach(() => {
    sqs.reset();
    sqs.on(SendMessageCommand).resolves({});
    vi.stubEnv(queueUrlVariable('run-tasks-small'), URL);
  });
  afterAll(() => {
    vi.unstubAllEnvs();
    sqs.restore();
  });

  test('the body as JSON to the queue’s URL, the delay in whole seconds within SQS’s 0 to 900', async () => {
    for (const delay of [0, 1.2, -3, 5000]) await sendToQueue('run-tasks-small', { n: delay }, delay);
    assert.deepEqual(
      sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input),
      [0, 1.2, -3, 5000].map((delay, i) => ({ QueueUrl: URL, MessageBody: JSON.stringify({ n: delay }), DelaySeconds: [0, 2, 0, 900][i] })),
    );
  });

  test('a sender built on it (a run’s wake) goes to its queue; a queue without a URL is an error, nothing sent', async () => {
    await wakeRun({ id: 'run_1', machine_size: 'small' }, { delaySeconds: 3, absent: 2 });
    assert.deepEqual(sqs.commandCalls(SendMessageCommand)[0]!.args[0].input, {
      QueueUrl: URL,
      MessageBody: JSON.stringify({ run_id: 'run_1', machine_size: 'small', absent: 2 }),
      DelaySeconds: 3,
    });
    vi.stubEnv(queueUrlVariable('run-tasks-small'), '');
    await assert.rejects(sendToQueue('run-tasks-small', {}), /QUEUE_URL_RUN_TASKS_SMALL is not set/);
    assert.equal(sqs.commandCalls(SendMessageCommand).length, 1);
  });
});
