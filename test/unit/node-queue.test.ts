import assert from 'node:assert/strict';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, test, vi } from 'vitest';
import { enqueueNodeTasks } from '#execution/node-queue.js';
import { AGENT_TASKS_QUEUE, NODE_TASKS_QUEUE } from '#execution/queues.js';
import { queueUrlVariable } from '#platform/queues.js';

// Every SQSClient, the one lib/platform/aws/clients.ts builds for the function included.
const sqs = mockClient(SQSClient);
const NODE_URL = 'http://sqs.local/000000000000/node-tasks';
const AGENT_URL = 'http://sqs.local/000000000000/agent-tasks';

describe('enqueueNodeTasks (SQS through the production client)', () => {
  beforeEach(() => {
    sqs.reset();
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    vi.stubEnv(queueUrlVariable(NODE_TASKS_QUEUE), NODE_URL);
    vi.stubEnv(queueUrlVariable(AGENT_TASKS_QUEUE), AGENT_URL);
  });
  afterAll(() => {
    vi.unstubAllEnvs();
    sqs.restore();
  });

  test('batches of ten per queue, agent nodes on their own queue, the task as the body', async () => {
    const tasks = Array.from({ length: 12 }, (_, i) => ({ request_id: 'r', node_id: `n${i}`, node_type: 'transform' }));
    await enqueueNodeTasks([...tasks, { request_id: 'r', node_id: 'agent', node_type: 'agent' }]);
    const calls = sqs.commandCalls(SendMessageBatchCommand).map((c) => c.args[0].input);
    assert.deepEqual(
      calls.map((c) => [c.QueueUrl, c.Entries?.length]),
      [
        [NODE_URL, 10],
        [NODE_URL, 2],
        [AGENT_URL, 1],
      ],
    );
    assert.deepEqual(calls[0]!.Entries![0], { Id: '0', MessageBody: JSON.stringify(tasks[0]), DelaySeconds: 0 });
  });

  test('a delay is whole seconds within SQS’s 0 to 900', async () => {
    await enqueueNodeTasks([{ request_id: 'r', node_id: 'a' }], 1.2);
    await enqueueNodeTasks([{ request_id: 'r', node_id: 'b' }], 5_000);
    const delays = sqs.commandCalls(SendMessageBatchCommand).map((c) => c.args[0].input.Entries![0]!.DelaySeconds);
    assert.deepEqual(delays, [2, 900]);
  });

  test('an entry SQS refuses fails the call; so does a missing queue URL', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [{ Id: '0', Code: 'InternalError', SenderFault: false, Message: 'try again' }] });
    await assert.rejects(enqueueNodeTasks([{ request_id: 'r', node_id: 'a' }]), /SQS refused 1 of 1 messages to node-tasks: try again/);
    vi.stubEnv(queueUrlVariable(NODE_TASKS_QUEUE), '');
    await assert.rejects(enqueueNodeTasks([{ request_id: 'r', node_id: 'a' }]), /QUEUE_URL_NODE_TASKS is not set/);
  });
});
