import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, test, vi } from 'vitest';
import { queueUrlVariable } from '#platform/queues.js';
import type { DeliveryMessage } from '#webhooks/delivery-messages.js';
import { type Json, jsonCaller } from '../helpers/api.js';
import { startFaultProxy } from '../helpers/dynamodb-fault-proxy.js';
import { queuesDrained } from '../helpers/queues.js';
import { signedUpUser, startTestStack } from '../helpers/stack.js';
import { Receiver, verified } from '../helpers/webhook-receiver.js';
import { apiFor, createVersion, runVersion, settledTree, transform } from '../helpers/workflows.js';

/**
 * Deliveries under faults, on a stack of its own whose DynamoDB goes through
 * a fault proxy (test/helpers/dynamodb-fault-proxy.ts): a delivery worker
 * that cannot record its attempt after the POST (as one that died there)
 * leaves its message to come back, and a receiver that never answers is cut
 * off at 15 s; messages that die on every receive end their deliveries
 * through the dead-letter workers. This file's process only (the pollers
 * read it on every receive): messages not deleted come back after 20 s
 * instead of the queue's 90, still longer than a delivery's 15 s; the tests
 * that let messages die make it 2 s, with a receiver that answers at once.
 */
process.env.OUTBOUND_ALLOWED_HOSTS = '127.0.0.1';
process.env.OUTBOUND_ALLOW_INSECURE = 'true';
process.env.WEBHOOK_RETRY_SCHEDULE_SECONDS = '1,1,1,1,1,1,1';
process.env.LOCAL_VISIBILITY_TIMEOUT_SECONDS = '20';

const fault = { recordsToFail: 0, deliveredRecords: false };
let proxy: Awaited<ReturnType<typeof startFaultProxy>>;
let stack: Awaited<ReturnType<typeof startTestStack>>;
let user: Awaited<ReturnType<typeof signedUpUser>>;
const receiver = new Receiver();

beforeAll(async () => {
  // A delivery's recorded attempt is the one UpdateItem of a delivery item (its key `DELIVERY#…`) on this path.
  proxy = await startFaultProxy(process.env.DYNAMODB_ENDPOINT!, (operation, body) => {
    if (operation !== 'UpdateItem' || !body.includes('"DELIVERY#')) return false;
    // The record of a 2xx is the one write of a delivery that says `delivered`; the dead-letter workers' say `failed`.
    if (fault.deliveredRecords && body.includes('"delivered"')) return true;
    if (fault.recordsToFail === 0) return false;
    fault.recordsToFail--;
    return true;
  });
  [stack] = await Promise.all([startTestStack({ dynamodbEndpoint: proxy.url }), receiver.start()]);
  user = await signedUpUser(stack, { plan: 'team' });
});
afterAll(async () => {
  await Promise.all([stack.stop(), receiver.stop()]);
  await proxy.stop();
});

const call = jsonCaller(() => stack.url);
const api = apiFor(
  () => stack.url,
  () => user.token,
);

async function endpoint(name: string): Promise<Json> {
  const created = await call(
    'POST',
    '/v1/webhook-endpoints',
    user.token,
    { url: `${receiver.url}/${name}`, events: ['workflow_request.completed'] },
    {
      'Idempotency-Key': randomUUID(),
    },
  );
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

async function completedRequest(): Promise<string> {
  const version = await createVersion(api, [transform('a', '{ "n": 1 }')], []);
  const id = await runVersion(api, version, {});
  await settledTree(api, id);
  return id;
}

async function deliveryWhen(endpointId: string, until: (delivery: Json) => boolean, timeout = 20_000): Promise<Json> {
  let last: Json | undefined;
  await vi.waitFor(
    async () => {
      last = (await call('GET', `/v1/webhook-endpoints/${endpointId}/deliveries`, user.token)).body.deliveries?.[0];
      assert.ok(last && until(last), JSON.stringify(last));
    },
    { timeout, interval: 200 },
  );
  return last!;
}

/** Runs `act` with messages not deleted back after 2 s, so that a message failing on every receive is dead within seconds. */
async function dyingQuickly<T>(act: () => Promise<T>): Promise<T> {
  const before = process.env.LOCAL_VISIBILITY_TIMEOUT_SECONDS;
  process.env.LOCAL_VISIBILITY_TIMEOUT_SECONDS = '2';
  try {
    return await act();
  } finally {
    process.env.LOCAL_VISIBILITY_TIMEOUT_SECONDS = before;
  }
}

async function retried(endpointId: string, deliveryId: string): Promise<Json> {
  const answer = await call('POST', `/v1/webhook-endpoints/${endpointId}/deliveries/${deliveryId}/retry`, user.token);
  assert.equal(answer.status, 202, JSON.stringify(answer.body));
  return deliveryWhen(endpointId, (d) => d.status === 'delivered');
}

describe('webhook deliveries under faults', () => {
  test('a worker that posts but cannot record the attempt: the message comes back, the same webhook-id is posted again, and the attempt is recorded once', async () => {
    // Prepare: every try of the first record fails (the SDK tries 4 times), so the worker gives the message back.
    const hook = await endpoint('dies');
    fault.recordsToFail = 4;
    // Act
    const requestId = await completedRequest();
    // Assert
    const delivery = await deliveryWhen(hook.id, (d) => d.status === 'delivered', 45_000);
    assert.equal(fault.recordsToFail, 0);
    assert.deepEqual([delivery.attempts, delivery.last_status_code], [1, 200]);
    const posts = receiver.of('dies');
    assert.equal(posts.length, 2, 'posted before the failed record, and again when the message came back');
    assert.deepEqual(new Set(posts.map((p) => p.headers['webhook-id'])), new Set([delivery.event_id]));
    for (const post of posts) assert.equal(verified(hook.secret, post).data.id, requestId);
  }, 60_000);

  test('a receiver that never answers is cut off after 15 s: the attempt is recorded as a timeout, with no status, and retried', async () => {
    // Prepare
    receiver.answers.set('silent', [0]);
    const hook = await endpoint('silent');
    const started = Date.now();
    // Act
    await completedRequest();
    // Assert
    const delivery = await deliveryWhen(hook.id, (d) => d.attempts >= 1, 30_000);
    assert.ok(Date.now() - started >= 15_000, 'not before the 15 s timeout');
    assert.equal(delivery.status, 'pending');
    assert.equal(delivery.last_status_code, null);
    assert.match(delivery.last_error, /^timeout: /);
    assert.ok(receiver.of('silent').length >= 1);
    // No more attempts: the endpoint is disabled.
    assert.equal((await call('PATCH', `/v1/webhook-endpoints/${hook.id}`, user.token, { disabled: true })).status, 200);
  }, 45_000);

  test('a delivery whose message fails on every receive ends failed with internal_error, not pending; a retry delivers it and a late copy of the dead message changes nothing', async () => {
    // Prepare: the record of every 2xx fails, so each receive POSTs and gives the message back until it is dead.
    const hook = await endpoint('dead-message');
    fault.deliveredRecords = true;
    // Act
    const failed = await dyingQuickly(async () => {
      try {
        await completedRequest();
        return await deliveryWhen(hook.id, (d) => d.status !== 'pending', 75_000);
      } finally {
        fault.deliveredRecords = false;
      }
    });
    // Assert
    assert.equal(failed.status, 'failed', JSON.stringify(failed));
    assert.deepEqual([failed.attempts, failed.last_status_code, failed.next_attempt_at], [0, null, null]);
    assert.match(failed.last_error, /^internal_error: /);
    assert.equal(receiver.of('dead-message').length, 5, 'one POST per receive, five receives, then the dead-letter queue');

    // Act
    const delivered = await retried(hook.id, failed.id);
    const deadLetters = stack.queues.find((q) => q.definition.name === 'webhook-deliveries')!.dlqUrl;
    const late: DeliveryMessage = { delivery_id: failed.id, endpoint_id: hook.id, account_id: user.accountId, series: 1, attempt: 1, due_at: 0 };
    const sqs = new SQSClient({ endpoint: stack.sqsEndpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    await sqs.send(new SendMessageCommand({ QueueUrl: deadLetters, MessageBody: JSON.stringify(late) }));
    sqs.destroy();
    await queuesDrained(stack);
    // Assert
    assert.deepEqual([delivered.attempts, delivered.last_status_code], [1, 200]);
    assert.deepEqual(await deliveryWhen(hook.id, () => true), delivered);
  }, 120_000);

  test('a notice whose dispatcher created the delivery but could never send it: once the notice is dead, the delivery ends failed, not pending', async () => {
    // Prepare: the dispatcher's sends to webhook-deliveries fail (its queue URL names no queue); the pollers keep the real one.
    const hook = await endpoint('never-sent');
    const variable = queueUrlVariable('webhook-deliveries');
    const url = process.env[variable]!;
    process.env[variable] = `${url}-gone`;
    // Act
    const failed = await dyingQuickly(async () => {
      try {
        await completedRequest();
        return await deliveryWhen(hook.id, (d) => d.status !== 'pending', 75_000);
      } finally {
        process.env[variable] = url;
      }
    });
    // Assert
    assert.equal(failed.status, 'failed', JSON.stringify(failed));
    assert.deepEqual([failed.attempts, failed.last_status_code, failed.next_attempt_at], [0, null, null]);
    assert.match(failed.last_error, /^internal_error: /);
    assert.equal(receiver.of('never-sent').length, 0);
    const delivered = await retried(hook.id, failed.id);
    assert.deepEqual([delivered.attempts, delivered.last_status_code], [1, 200]);
  }, 120_000);
});
