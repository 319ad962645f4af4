import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test, vi } from 'vitest';
import { finishRequest } from '#execution/finish.js';
import { enqueueNodeTasks } from '#execution/node-queue.js';
import { workflowRequests } from '#execution/workflow-requests.js';
import { interactionsService } from '#interactions/index.js';
import { webhookNotices } from '#webhooks/index.js';
import { badListQueries, type Json, jsonCaller, withoutTraceId } from '../helpers/api.js';
import { idempotencyRecordsHold } from '../helpers/idempotency-records.js';
import { queuesDrained } from '../helpers/queues.js';
import { newMachine, runWhen } from '../helpers/runs.js';
import { signedUpUser, startTestStack } from '../helpers/stack.js';
import { Receiver, verified } from '../helpers/webhook-receiver.js';
import { apiFor, createVersion, node, runVersion, settledTree, transform } from '../helpers/workflows.js';

// The handlers and workers run in this process and read these on every call: the receiver
// below is on 127.0.0.1 over http:, and retries come after 1 s instead of 5 s, 5 min, ….
process.env.OUTBOUND_ALLOWED_HOSTS = '127.0.0.1';
process.env.OUTBOUND_ALLOW_INSECURE = 'true';
process.env.WEBHOOK_RETRY_SCHEDULE_SECONDS = '1,1,1,1,1,1,1';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let user: Awaited<ReturnType<typeof signedUpUser>>;
let other: Awaited<ReturnType<typeof signedUpUser>>;
const receiver = new Receiver();

beforeAll(async () => {
  [stack] = await Promise.all([startTestStack(), receiver.start()]);
  [user, other] = await Promise.all([signedUpUser(stack, { plan: 'team' }), signedUpUser(stack, { plan: 'team' })]);
});
afterAll(async () => {
  await Promise.all([stack.stop(), receiver.stop()]);
});

const call = jsonCaller(() => stack.url);
const post = (path: string, body: unknown, token = user.token) => call('POST', path, token, body, { 'Idempotency-Key': randomUUID() });
const get = (path: string, token = user.token) => call('GET', path, token);
const patch = (path: string, body: unknown, token = user.token) => call('PATCH', path, token, body);

async function endpoint(name: string, events: string[], token = user.token): Promise<Json> {
  const created = await post('/v1/webhook-endpoints', { url: `${receiver.url}/${name}`, events, description: name }, token);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

async function harness(token = user.token, model = 'local/echo'): Promise<string> {
  const files = [
    { path: 'harness.json', content: JSON.stringify({ model, instructions: 'prompt.md' }) },
    { path: 'prompt.md', content: 'You echo.' },
  ];
  const created = await post('/v2/harnesses', { name: `h ${randomUUID().slice(0, 6)}`, files }, token);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.id;
}

/** A run of a local/echo harness, once it has completed. */
async function completedRun(token = user.token): Promise<Json> {
  const [harnessId, machineId] = await Promise.all([harness(token), newMachine(call, token)]);
  const created = await post('/v2/runs', { harness_id: harnessId, machine_id: machineId, input: 'hello' }, token);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return runWhen(
    (path) => get(path, token),
    created.body.id,
    (run) => run.status === 'completed',
  );
}

async function deliveries(endpointId: string, token = user.token): Promise<Json[]> {
  const page = await get(`/v1/webhook-endpoints/${endpointId}/deliveries?limit=100`, token);
  assert.equal(page.status, 200, JSON.stringify(page.body));
  return page.body.deliveries;
}

/** The endpoint's deliveries once `until` holds for them. */
async function deliveriesWhen(endpointId: string, until: (list: Json[]) => boolean, token = user.token): Promise<Json[]> {
  let last: Json[] = [];
  await vi.waitFor(
    async () => {
      last = await deliveries(endpointId, token);
      assert.ok(until(last), `deliveries of ${endpointId}: ${JSON.stringify(last)}`);
    },
    { timeout: 20_000, interval: 100 },
  );
  return last;
}

const webhookQueues = () => ({ ...stack, queues: stack.queues.filter((q) => q.definition.name.startsWith('webhook-')) });

describe('webhook endpoints', () => {
  test('create shows the secret once; get, list, patch and delete; 404s are alike', async () => {
    const created = await endpoint('crud', ['run.completed', 'run.failed', 'run.completed']);
    assert.match(created.id, /^whe_/);
    assert.match(created.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    assert.deepEqual(
      { ...created, id: undefined, secret: undefined, created_at: undefined, updated_at: undefined },
      {
        id: undefined,
        secret: undefined,
        url: `${receiver.url}/crud`,
        events: ['run.completed', 'run.failed'],
        description: 'crud',
        disabled: false,
        disabled_reason: null,
        secret_rotated_at: null,
        previous_secret_expires_at: null,
        created_at: undefined,
        updated_at: undefined,
      },
    );
    const read = await get(`/v1/webhook-endpoints/${created.id}`);
    assert.equal(read.status, 200);
    assert.equal(read.body.secret, undefined, 'the secret is never shown again');
    const { secret: _shown, ...view } = created;
    assert.deepEqual(read.body, view);

    const changed = await patch(`/v1/webhook-endpoints/${created.id}`, { events: ['evaluation.completed'], disabled: true, description: null });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual(
      [changed.body.events, changed.body.disabled, changed.body.disabled_reason, changed.body.description],
      [['evaluation.completed'], true, 'user', null],
    );
    const enabled = await patch(`/v1/webhook-endpoints/${created.id}`, { disabled: false });
    assert.deepEqual([enabled.body.disabled, enabled.body.disabled_reason], [false, null]);

    const missing = await get('/v1/webhook-endpoints/whe_000000000AAAAAAAAAAAAAAAA');
    const malformed = await get('/v1/webhook-endpoints/nope');
    const foreign = await get(`/v1/webhook-endpoints/${created.id}`, other.token);
    assert.equal(missing.status, 404);
    assert.deepEqual(withoutTraceId(malformed.body), withoutTraceId(missing.body));
    assert.deepEqual(withoutTraceId(foreign.body), withoutTraceId(missing.body));
    for (const answer of [
      await patch(`/v1/webhook-endpoints/${created.id}`, { disabled: true }, other.token),
      await get(`/v1/webhook-endpoints/${created.id}/deliveries`, other.token),
      await call('DELETE', `/v1/webhook-endpoints/${created.id}`, other.token),
    ]) {
      assert.deepEqual([answer.status, withoutTraceId(answer.body)], [404, withoutTraceId(missing.body)]);
    }

    assert.equal((await call('DELETE', `/v1/webhook-endpoints/${created.id}`, user.token)).status, 204);
    assert.equal((await call('DELETE', `/v1/webhook-endpoints/${created.id}`, user.token)).status, 404);
    assert.equal((await get(`/v1/webhook-endpoints/${created.id}`)).status, 404);
  });

  test('an Idempotency-Key makes a repeated create answer the first endpoint and secret', async () => {
    const owner = await signedUpUser(stack);
    const key = randomUUID();
    const body = { url: `${receiver.url}/idem`, events: ['run.completed'] };
    const first = await call('POST', '/v1/webhook-endpoints', owner.token, body, { 'Idempotency-Key': key });
    const again = await call('POST', '/v1/webhook-endpoints', owner.token, body, { 'Idempotency-Key': key });
    assert.equal(first.status, 201);
    assert.equal(again.headers.get('idempotency-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
    // The idempotency record keeps the answer without the secret.
    assert.equal(await idempotencyRecordsHold(stack.table, first.body.secret.slice('whsec_'.length)), false);
  });

  test('validation: unknown event types name /events/<i>; private, metadata and malformed URLs are refused', async () => {
    const bad = await post('/v1/webhook-endpoints', { url: `${receiver.url}/x`, events: ['run.completed', 'run.exploded'] });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.code, 'validation_failed');
    assert.deepEqual(
      bad.body.errors.map((e: Json) => e.name),
      ['/events/1'],
    );
    for (const [url, code] of [
      ['http://10.0.0.7/hook', 'url_not_allowed'],
      ['http://169.254.169.254/latest/meta-data', 'url_not_allowed'],
      ['http://[::1]:8080/hook', 'url_not_allowed'],
      ['http://metadata.google.internal/x', 'url_not_allowed'],
      ['ftp://example.com/x', 'invalid_url'],
      ['http://user:pw@127.0.0.1/x', 'invalid_url'],
    ] as const) {
      const refused = await post('/v1/webhook-endpoints', { url, events: ['run.completed'] });
      assert.equal(refused.status, 422, url);
      assert.deepEqual(
        refused.body.errors.map((e: Json) => [e.name, e.code]),
        [['/url', code]],
        url,
      );
    }
    assert.equal((await post('/v1/webhook-endpoints', { url: `${receiver.url}/x`, events: [] })).status, 422);
    assert.equal((await post('/v1/webhook-endpoints', { url: `${receiver.url}/x`, events: ['run.completed'], secret: 'mine' })).status, 400);

    const created = await endpoint('valid', ['run.completed']);
    const moved = await patch(`/v1/webhook-endpoints/${created.id}`, { url: 'http://192.168.1.1/x' });
    assert.equal(moved.status, 422);
    assert.equal(moved.body.errors[0].name, '/url');
    const typo = await patch(`/v1/webhook-endpoints/${created.id}`, { events: ['interaction.created', 'nope'] });
    assert.equal(typo.body.errors[0].name, '/events/1');
    assert.equal((await get(`/v1/webhook-endpoints/${created.id}`)).body.url, `${receiver.url}/valid`, 'a refused change changes nothing');
  });

  test('an account has at most 20 endpoints, exactly under concurrent creates: past it 409 with the limit; a delete frees a place', async () => {
    const owner = await signedUpUser(stack);
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) => post('/v1/webhook-endpoints', { url: `${receiver.url}/many-${i}`, events: ['run.completed'] }, owner.token)),
    );
    const created = answers.filter((a) => a.status === 201);
    assert.equal(created.length, 20, JSON.stringify(answers.map((a) => a.status)));
    for (const refused of answers.filter((a) => a.status !== 201)) {
      assert.equal(refused.status, 409, JSON.stringify(refused.body));
      assert.deepEqual([refused.body.code, refused.body.limit], ['webhook_endpoint_limit_reached', 20]);
    }
    const listed = await get('/v1/webhook-endpoints?limit=100', owner.token);
    assert.equal(listed.body.endpoints.length, 20);
    assert.equal((await call('DELETE', `/v1/webhook-endpoints/${created[0]!.body.id}`, owner.token)).status, 204);
    assert.equal((await call('DELETE', `/v1/webhook-endpoints/${created[0]!.body.id}`, owner.token)).status, 404);
    assert.equal((await post('/v1/webhook-endpoints', { url: `${receiver.url}/again`, events: ['run.completed'] }, owner.token)).status, 201);
    assert.equal((await post('/v1/webhook-endpoints', { url: `${receiver.url}/past`, events: ['run.completed'] }, owner.token)).status, 409);
  });

  test('the list is paged newest first, with the usual bad queries refused', async () => {
    const owner = await signedUpUser(stack);
    const made: string[] = [];
    for (const name of ['p1', 'p2', 'p3']) made.push((await endpoint(name, ['run.completed'], owner.token)).id);
    const first = await get('/v1/webhook-endpoints?limit=2', owner.token);
    assert.deepEqual(
      first.body.endpoints.map((e: Json) => e.id),
      [made[2], made[1]],
    );
    assert.equal(first.body.has_more, true);
    const second = await get(`/v1/webhook-endpoints?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`, owner.token);
    assert.deepEqual(
      second.body.endpoints.map((e: Json) => e.id),
      [made[0]],
    );
    assert.deepEqual([second.body.has_more, second.body.next_cursor], [false, null]);
    for (const [query, code] of badListQueries(first.body.next_cursor)) {
      const response = await get(`/v1/webhook-endpoints${query}`);
      assert.equal(response.status, 400, query);
      assert.equal(response.body.code, code, query);
    }
  });
});

describe('deliveries', () => {
  test('a run ending delivers a verified {type, timestamp, data}; other accounts’ and other types’ endpoints get nothing; a repeated notice creates nothing', async () => {
    const mine = await endpoint('mine', ['run.completed']);
    const otherType = await endpoint('other-type', ['run.failed', 'evaluation.completed']);
    const foreign = await endpoint('foreign', ['run.completed'], other.token);
    const run = await completedRun();

    const [delivery] = await deliveriesWhen(mine.id, (list) => list[0]?.status === 'delivered');
    const requests = receiver.of('mine');
    assert.equal(requests.length, 1);
    const payload = verified(mine.secret, requests[0]!);
    assert.deepEqual(payload, { type: 'run.completed', timestamp: run.completed_at, data: run });
    assert.equal(requests[0]!.headers['content-type'], 'application/json');
    assert.equal(requests[0]!.headers['webhook-id'], delivery!.event_id);
    assert.throws(() => verified(otherType.secret, requests[0]!), 'another endpoint’s secret does not verify it');
    assert.deepEqual(
      { ...delivery, id: undefined, created_at: undefined, delivered_at: undefined, event_id: undefined },
      {
        id: undefined,
        endpoint_id: mine.id,
        event_id: undefined,
        event_type: 'run.completed',
        status: 'delivered',
        attempts: 1,
        last_status_code: 200,
        last_error: null,
        next_attempt_at: null,
        created_at: undefined,
        delivered_at: undefined,
      },
    );

    // The notice comes again (a writer repeating its announce, a redelivery): nothing is created or sent twice.
    const { makeHandler: dispatcher } = await import('../../functions/workers/webhook-events.js');
    const notice = { account_id: user.accountId, event_id: delivery!.event_id, event_type: 'run.completed', created_at: run.completed_at };
    const record = () => ({ messageId: randomUUID(), body: JSON.stringify(notice), attributes: { ApproximateReceiveCount: '2' } });
    const context = { getRemainingTimeInMillis: () => 60_000 };
    assert.deepEqual(await dispatcher()({ Records: [record(), record()] } as never, context as never), { batchItemFailures: [] });
    // The same notice under another account finds no such event there.
    const stolen = { ...notice, account_id: other.accountId };
    await dispatcher()({ Records: [{ ...record(), body: JSON.stringify(stolen) }] } as never, context as never);
    await queuesDrained(webhookQueues());
    assert.equal((await deliveries(mine.id)).length, 1);
    assert.equal(receiver.of('mine').length, 1);
    assert.equal(receiver.of('other-type').length, 0);
    assert.equal(receiver.of('foreign').length, 0);
    assert.deepEqual(await deliveries(foreign.id, other.token), []);
    assert.deepEqual(await deliveries(otherType.id), []);
  });

  test('a workflow request ending delivers workflow_request.completed, and a stopped one workflow_request.stopped, as GET shows them', async () => {
    // Prepare
    const hook = await endpoint('requests', ['workflow_request.completed', 'workflow_request.stopped']);
    const api = apiFor(
      () => stack.url,
      () => user.token,
    );
    const v = await createVersion(api, [transform('a', '{ "n": 1 }')], []);
    const gate = node('gate', 'approval');
    const waiting = await createVersion(api, [gate], []);
    // Act
    const id = await runVersion(api, v, {});
    await settledTree(api, id);
    const held = await runVersion(api, waiting, {});
    await vi.waitFor(async () => assert.equal((await get(`/v1/workflow-requests/${held}`)).body.status, 'waiting'), { timeout: 20_000, interval: 100 });
    const stopped = await post(`/v1/workflow-requests/${held}/stop`, {});
    assert.equal(stopped.status, 200, JSON.stringify(stopped.body));
    // Assert
    const list = await deliveriesWhen(hook.id, (l) => l.length === 2 && l.every((d) => d.status === 'delivered'));
    assert.deepEqual(list.map((d) => d.event_type).sort(), ['workflow_request.completed', 'workflow_request.stopped']);
    const bodies = receiver.of('requests').map((r) => verified(hook.secret, r));
    const completed = bodies.find((b) => b.type === 'workflow_request.completed')!;
    assert.deepEqual(completed.data, (await get(`/v1/workflow-requests/${id}`)).body);
    assert.equal(completed.timestamp, completed.data.completed_at);
    const stoppedEvent = bodies.find((b) => b.type === 'workflow_request.stopped')!;
    assert.deepEqual(stoppedEvent.data, (await get(`/v1/workflow-requests/${held}`)).body);
  });

  test('a stop that died between its end and its notice: stopping again sends the notice, and the delivery is made once', async () => {
    // Prepare: the request waits at an approval; the first stop commits its end, then its process dies before the notice.
    const hook = await endpoint('restop', ['workflow_request.stopped']);
    const api = apiFor(
      () => stack.url,
      () => user.token,
    );
    const waiting = await createVersion(api, [node('gate', 'approval')], []);
    const held = await runVersion(api, waiting, {});
    await vi.waitFor(async () => assert.equal((await get(`/v1/workflow-requests/${held}`)).body.status, 'waiting'), { timeout: 20_000, interval: 100 });
    const died = new Error('the process died after the end was committed');
    const dying = {
      requests: workflowRequests(),
      interactions: interactionsService(),
      enqueue: enqueueNodeTasks,
      webhooks: { listening: webhookNotices().listening, announce: () => Promise.reject(died) },
    };
    await assert.rejects(finishRequest(dying, held, 'stopped', null), died);
    assert.equal((await get(`/v1/workflow-requests/${held}`)).body.status, 'stopped');
    await queuesDrained(webhookQueues());
    assert.deepEqual(await deliveries(hook.id), []);
    // Act
    const again = await post(`/v1/workflow-requests/${held}/stop`, {});
    const third = await post(`/v1/workflow-requests/${held}/stop`, {});
    // Assert
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(third.status, 200, JSON.stringify(third.body));
    const list = await deliveriesWhen(hook.id, (l) => l.length === 1 && l[0]!.status === 'delivered');
    assert.equal(list[0]!.event_type, 'workflow_request.stopped');
    await queuesDrained(webhookQueues());
    assert.equal(receiver.of('restop').length, 1);
    assert.deepEqual(verified(hook.secret, receiver.of('restop')[0]!).data, (await get(`/v1/workflow-requests/${held}`)).body);
  });

  test('an evaluation completing delivers evaluation.completed with its results', async () => {
    const owner = await signedUpUser(stack, { plan: 'team' });
    const hook = await endpoint('evaluations', ['evaluation.completed'], owner.token);
    const [harnessId, machineId] = await Promise.all([harness(owner.token), newMachine(call, owner.token)]);
    const created = await post(
      '/v2/evaluations',
      {
        name: 'hooked',
        harness_id: harnessId,
        machine_id: machineId,
        run: true,
        attempts_per_case: 1,
        cases: [{ id: 'a', input: 'hi', expected: { type: 'exact', value: 'hi' } }],
      },
      owner.token,
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await deliveriesWhen(hook.id, (list) => list[0]?.status === 'delivered', owner.token);
    const payload = verified(hook.secret, receiver.of('evaluations')[0]!);
    const evaluation = (await get(`/v2/evaluations/${created.body.id}`, owner.token)).body;
    const { cases: _cases, ...summary } = evaluation;
    assert.deepEqual(payload, { type: 'evaluation.completed', timestamp: evaluation.completed_at, data: summary });
    assert.equal(payload.data.results.pass_rate, 1);
  });

  test('a run asking its user delivers interaction.created, then its cancel run.cancelled', async () => {
    const owner = await signedUpUser(stack, { plan: 'team' });
    const hook = await endpoint('people', ['interaction.created', 'run.cancelled'], owner.token);
    const [harnessId, machineId] = await Promise.all([harness(owner.token, 'local/script'), newMachine(call, owner.token)]);
    const input = { steps: [{ tool: 'ask_user', arguments: { question: 'ship it?' } }, { reply: 'done' }] };
    const created = await post('/v2/runs', { harness_id: harnessId, machine_id: machineId, input }, owner.token);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await deliveriesWhen(hook.id, (list) => list[0]?.status === 'delivered', owner.token);
    const asked = verified(hook.secret, receiver.of('people')[0]!);
    const interaction = (await get(`/v2/interactions/${asked.data.id}`, owner.token)).body;
    assert.deepEqual(asked, { type: 'interaction.created', timestamp: interaction.created_at, data: interaction });
    assert.equal(interaction.run_id, created.body.id);

    const cancelled = await call('POST', `/v2/runs/${created.body.id}/cancel`, owner.token);
    assert.equal(cancelled.body.status, 'cancelled');
    await deliveriesWhen(hook.id, (list) => list.length === 2 && list.every((d) => d.status === 'delivered'), owner.token);
    const ended = verified(hook.secret, receiver.of('people')[1]!);
    assert.deepEqual(ended, {
      type: 'run.cancelled',
      timestamp: cancelled.body.completed_at,
      data: (await get(`/v2/runs/${created.body.id}`, owner.token)).body,
    });
  });

  test('500, 500, then 200: three attempts with one webhook-id, and the log says delivered after 3', async () => {
    const owner = await signedUpUser(stack, { plan: 'team' });
    receiver.answers.set('flaky', [500, 500, 200]);
    const hook = await endpoint('flaky', ['run.completed'], owner.token);
    await completedRun(owner.token);
    const [delivery] = await deliveriesWhen(hook.id, (list) => list[0]?.status === 'delivered', owner.token);
    assert.deepEqual([delivery!.attempts, delivery!.status, delivery!.last_status_code, delivery!.last_error], [3, 'delivered', 200, null]);
    const requests = receiver.of('flaky');
    assert.equal(requests.length, 3);
    assert.deepEqual(new Set(requests.map((r) => r.headers['webhook-id'])), new Set([delivery!.event_id]));
    assert.deepEqual(new Set(requests.map((r) => r.body)).size, 1, 'every attempt sends the same body');
    for (const request of requests) verified(hook.secret, request);
  });

  test('a receiver that never succeeds: the schedule runs out and the delivery fails; retry starts a new series', async () => {
    const owner = await signedUpUser(stack, { plan: 'team' });
    receiver.answers.set('down', [503]);
    const hook = await endpoint('down', ['run.completed'], owner.token);
    await completedRun(owner.token);
    const [failed] = await deliveriesWhen(hook.id, (list) => list[0]?.status === 'failed', owner.token);
    assert.deepEqual([failed!.attempts, failed!.last_status_code, failed!.next_attempt_at], [8, 503, null], 'one attempt and 7 retries');
    assert.match(failed!.last_error, /503/);
    assert.equal(receiver.of('down').length, 8);

    receiver.answers.set('down', [200]);
    const retried = await call('POST', `/v1/webhook-endpoints/${hook.id}/deliveries/${failed!.id}/retry`, owner.token);
    assert.equal(retried.status, 202, JSON.stringify(retried.body));
    assert.equal(retried.body.status, 'pending');
    const [delivered] = await deliveriesWhen(hook.id, (list) => list[0]?.status === 'delivered', owner.token);
    assert.deepEqual([delivered!.id, delivered!.attempts, delivered!.last_status_code], [failed!.id, 9, 200]);
    assert.equal(receiver.of('down').at(-1)!.headers['webhook-id'], failed!.event_id, 'the same webhook-id');

    const unknown = await call('POST', `/v1/webhook-endpoints/${hook.id}/deliveries/whd_000000000AAAAAAAAAAAAAAAA/retry`, owner.token);
    const foreign = await call('POST', `/v1/webhook-endpoints/${hook.id}/deliveries/${failed!.id}/retry`, other.token);
    assert.deepEqual([unknown.status, foreign.status], [404, 404]);
  });

  test('a rotated secret: shown once, deliveries verify with it and, for 24 hours, with the replaced one; another account’s endpoint is 404', async () => {
    const owner = await signedUpUser(stack, { plan: 'team' });
    const hook = await endpoint('rotated', ['workflow_request.completed'], owner.token);
    const rotated = await call('POST', `/v1/webhook-endpoints/${hook.id}/rotate-secret`, owner.token);
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    assert.notEqual(rotated.body.secret, hook.secret);
    assert.ok(Date.parse(rotated.body.previous_secret_expires_at) - Date.parse(rotated.body.secret_rotated_at) === 24 * 3600 * 1000);
    assert.equal((await get(`/v1/webhook-endpoints/${hook.id}`, owner.token)).body.secret, undefined);
    assert.equal((await call('POST', `/v1/webhook-endpoints/${hook.id}/rotate-secret`, user.token)).status, 404);
    const ownerApi = apiFor(
      () => stack.url,
      () => owner.token,
    );
    const v = await createVersion(ownerApi, [transform('a', '{ "n": 1 }')], []);
    const id = await runVersion(ownerApi, v, {});
    await settledTree(ownerApi, id);
    await deliveriesWhen(hook.id, (list) => list[0]?.status === 'delivered', owner.token);
    const [request] = receiver.of('rotated');
    assert.equal(verified(rotated.body.secret, request!).data.id, id);
    assert.equal(verified(hook.secret, request!).data.id, id);
  });

  test('410 disables the endpoint; enabled again, a retry delivers', async () => {
    const owner = await signedUpUser(stack, { plan: 'team' });
    receiver.answers.set('gone', [410]);
    const hook = await endpoint('gone', ['run.completed'], owner.token);
    await completedRun(owner.token);
    const [failed] = await deliveriesWhen(hook.id, (list) => list[0]?.status === 'failed', owner.token);
    assert.deepEqual([failed!.attempts, failed!.last_status_code], [1, 410]);
    const disabled = (await get(`/v1/webhook-endpoints/${hook.id}`, owner.token)).body;
    assert.deepEqual([disabled.disabled, disabled.disabled_reason], [true, 'gone']);

    // Disabled, it gets nothing: no delivery for a new event, and no manual retry.
    await completedRun(owner.token);
    await queuesDrained(webhookQueues());
    assert.equal((await deliveries(hook.id, owner.token)).length, 1);
    const refused = await call('POST', `/v1/webhook-endpoints/${hook.id}/deliveries/${failed!.id}/retry`, owner.token);
    assert.deepEqual([refused.status, refused.body.code], [409, 'webhook_endpoint_disabled']);

    receiver.answers.set('gone', [200]);
    assert.equal((await patch(`/v1/webhook-endpoints/${hook.id}`, { disabled: false }, owner.token)).body.disabled, false);
    assert.equal((await call('POST', `/v1/webhook-endpoints/${hook.id}/deliveries/${failed!.id}/retry`, owner.token)).status, 202);
    const [delivered] = await deliveriesWhen(hook.id, (list) => list[0]?.status === 'delivered', owner.token);
    assert.deepEqual([delivered!.attempts, delivered!.last_status_code], [2, 200]);
    assert.equal(receiver.of('gone').length, 2);
  });
});
