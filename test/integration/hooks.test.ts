import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { adminCommands } from '#accounts/admin-commands.js';
import { JSON_MAX_DEPTH } from '#platform/config/limits.js';
import { keys } from '#platform/table/keys.js';
import { badListQueries, type Json, type JsonAnswer, jsonCaller, withoutTraceId } from '../helpers/api.js';
import { idempotencyRecordsHold } from '../helpers/idempotency-records.js';
import { signedUpUser, startTestStack } from '../helpers/stack.js';
import { apiFor, createVersion, settledTree, transform } from '../helpers/workflows.js';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let user: Awaited<ReturnType<typeof signedUpUser>>;

beforeAll(async () => {
  stack = await startTestStack();
  user = await signedUpUser(stack);
});
afterAll(async () => {
  await stack.stop();
});

const call = jsonCaller(() => stack.url);
const api = apiFor(
  () => stack.url,
  () => user.token,
);

/** A version with one transform node that adds one to `n` of the payload. */
async function plusOne(token = user.token) {
  const a = transform('a', '{ "n": n + 1 }');
  return createVersion(
    apiFor(
      () => stack.url,
      () => token,
    ),
    [a],
    [],
  );
}

async function newHook(token = user.token, version?: { id: string; entry_node_ids: string[] }): Promise<Json> {
  const v = version ?? (await plusOne(token));
  const created = await call('POST', '/v1/hooks', token, {
    name: `hook ${randomUUID().slice(0, 8)}`,
    workflow_version_id: v.id,
    entry_node_ids: v.entry_node_ids,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

interface Signed {
  body: string;
  headers: Record<string, string>;
}

/** An event signed with `secret` per Standard Webhooks, with the library. */
function sign(secret: string, payload: unknown, options: { id?: string; at?: Date; body?: string } = {}): Signed {
  const id = options.id ?? `msg_${randomUUID()}`;
  const at = options.at ?? new Date();
  const body = options.body ?? JSON.stringify(payload);
  return {
    body,
    headers: { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(secret).sign(id, at, body) },
  };
}

/** Posts an event to a hook's URL: no bearer token. */
async function post(url: string, event: Signed): Promise<JsonAnswer> {
  const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...event.headers }, body: event.body });
  const text = await response.text();
  return { status: response.status, type: response.headers.get('content-type'), headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

const eventsUrl = (hookId: string) => `${stack.url}/v1/hooks/${hookId}/events`;

function isProblem(answer: JsonAnswer, status: number, code: string) {
  assert.equal(answer.status, status, JSON.stringify(answer.body));
  assert.equal(answer.type, 'application/problem+json');
  assert.equal(answer.body.code, code);
  assert.equal(answer.body.status, status);
}

/** The account's requests of one workflow version, as the history lists them. */
async function requestsOf(workflowId: string): Promise<Json[]> {
  const page = await api('GET', `/v1/workflow-requests?workflow_id=${workflowId}&limit=100`);
  assert.equal(page.status, 200, JSON.stringify(page.body));
  return page.body.workflow_requests;
}

describe('hooks: create, read, list, delete', () => {
  test('create answers the hook with its url and secret once; GET and the list never show a secret, and the table holds none', async () => {
    const v = await plusOne();
    const key = randomUUID();
    const body = { name: '  orders  ', workflow_version_id: v.id, entry_node_ids: v.entry_node_ids };
    const created = await call('POST', '/v1/hooks', user.token, body, { 'Idempotency-Key': key });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const hook = created.body;
    assert.match(hook.id, /^hook_[0-9a-z]{9}[A-Za-z0-9_-]{16}$/);
    assert.deepEqual(Object.keys(hook), [
      'id',
      'name',
      'url',
      'secret',
      'workflow_version_id',
      'entry_node_ids',
      'secret_rotated_at',
      'previous_secret_expires_at',
      'created_at',
    ]);
    assert.equal(hook.name, 'orders');
    assert.equal(hook.url, `${stack.url}/v1/hooks/${hook.id}/events`);
    assert.match(hook.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(hook.secret.slice('whsec_'.length), 'base64').length, 32);
    assert.equal(hook.workflow_version_id, v.id);
    assert.deepEqual(hook.entry_node_ids, v.entry_node_ids);
    assert.equal(hook.secret_rotated_at, null);
    assert.equal(hook.previous_secret_expires_at, null);

    // A retry with the key is the first answer, secret included, though the record keeps none.
    const replayed = await call('POST', '/v1/hooks', user.token, body, { 'Idempotency-Key': key });
    assert.equal(replayed.status, 201);
    assert.equal(replayed.headers.get('idempotency-replayed'), 'true');
    assert.deepEqual(replayed.body, hook);

    const got = await call('GET', `/v1/hooks/${hook.id}`, user.token);
    assert.equal(got.status, 200);
    const { secret: _, ...view } = hook;
    assert.deepEqual(got.body, view);
    assert.equal(JSON.stringify(got.body).includes('whsec_'), false);

    // Not in the hook's item, nor in any idempotency record.
    const { Item } = await stack.table.db.send(new GetCommand({ TableName: stack.tableName, Key: keys.hook(hook.id), ConsistentRead: true }));
    assert.ok(Item);
    assert.equal(Item.secret_version, 1);
    assert.equal(JSON.stringify(Item).includes(hook.secret.slice('whsec_'.length)), false);
    assert.equal(await idempotencyRecordsHold(stack.table, hook.secret.slice('whsec_'.length)), false);
  });

  test('another account’s or an unknown version, and entry nodes not the version’s, are the 422 running them answers', async () => {
    const other = await signedUpUser(stack);
    const theirs = await plusOne(other.token);
    const foreign = await call('POST', '/v1/hooks', user.token, { name: 'x', workflow_version_id: theirs.id, entry_node_ids: theirs.entry_node_ids });
    isProblem(foreign, 422, 'validation_failed');
    const run = await call('POST', '/v1/workflow-requests/run', user.token, { workflow_version_id: theirs.id, entry_node_ids: theirs.entry_node_ids });
    isProblem(run, 422, 'validation_failed');
    assert.deepEqual(foreign.body.errors, run.body.errors);
    assert.deepEqual(foreign.body.errors, [{ name: '/workflow_version_id', location: 'body', reason: 'no such workflow version', code: 'invalid_reference' }]);

    const mine = await plusOne();
    const wrongEntry = await call('POST', '/v1/hooks', user.token, { name: 'x', workflow_version_id: mine.id, entry_node_ids: [randomUUID()] });
    isProblem(wrongEntry, 422, 'validation_failed');
    assert.equal(wrongEntry.body.errors[0].name, '/entry_node_ids/0');
    isProblem(await call('POST', '/v1/hooks', user.token, { name: 'x', workflow_version_id: mine.id }), 422, 'validation_failed');
    isProblem(
      await call('POST', '/v1/hooks', user.token, { name: 'x', workflow_version_id: mine.id, entry_node_ids: mine.entry_node_ids, extra: 1 }),
      400,
      'unknown_field',
    );
  });

  test('an account has at most 100 hooks, exactly under concurrent creates: past it 409 with the limit; a delete frees a place', async () => {
    const owner = await signedUpUser(stack);
    const v = await plusOne(owner.token);
    const create = (name: string) => call('POST', '/v1/hooks', owner.token, { name, workflow_version_id: v.id, entry_node_ids: v.entry_node_ids });
    const answers = await Promise.all(Array.from({ length: 104 }, (_, i) => create(`many ${i}`)));
    const created = answers.filter((a) => a.status === 201);
    assert.equal(created.length, 100, JSON.stringify(answers.filter((a) => a.status !== 201 && a.status !== 409).map((a) => a.body)));
    for (const refused of answers.filter((a) => a.status !== 201)) {
      assert.equal(refused.status, 409, JSON.stringify(refused.body));
      assert.deepEqual([refused.body.code, refused.body.limit], ['hook_limit_reached', 100]);
    }
    assert.equal((await call('DELETE', `/v1/hooks/${created[0]!.body.id}`, owner.token)).status, 204);
    assert.equal((await call('DELETE', `/v1/hooks/${created[0]!.body.id}`, owner.token)).status, 404);
    assert.equal((await create('again')).status, 201);
    assert.equal((await create('past')).status, 409);
  });

  test('the list pages newest first with a cursor and shows no secret; bad queries are 400', async () => {
    const owner = await signedUpUser(stack);
    const v = await plusOne(owner.token);
    const made: Json[] = [];
    for (let i = 0; i < 5; i++) made.push(await newHook(owner.token, v));
    const seen: Json[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: JsonAnswer = await call('GET', `/v1/hooks?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, owner.token);
      assert.equal(page.status, 200, JSON.stringify(page.body));
      assert.ok(page.body.hooks.length <= 2);
      assert.equal(page.body.has_more, page.body.next_cursor !== null);
      seen.push(...page.body.hooks);
      cursor = page.body.next_cursor;
      pages++;
    } while (cursor);
    assert.equal(pages, 3);
    assert.deepEqual(
      seen.map((h) => h.id),
      made.map((h) => h.id).reverse(),
    );
    for (const hook of seen) {
      assert.equal(hook.secret, undefined);
      assert.equal(JSON.stringify(hook).includes('whsec_'), false);
    }
    await newHook();
    await newHook();
    const foreign = (await call('GET', '/v1/hooks?limit=1', user.token)).body.next_cursor as string;
    assert.ok(foreign);
    for (const [query, code] of badListQueries(foreign)) isProblem(await call('GET', `/v1/hooks${query}`, owner.token), 400, code);
  });

  test('another account’s, an unknown and a malformed hook are the same 404 on every route; DELETE is 204 once, then 404', async () => {
    const hook = await newHook();
    const other = await signedUpUser(stack);
    const answers: JsonAnswer[] = [];
    for (const id of [hook.id, `hook_${'0'.repeat(9)}${'A'.repeat(16)}`, 'nope']) {
      answers.push(await call('GET', `/v1/hooks/${id}`, other.token));
      answers.push(await call('DELETE', `/v1/hooks/${id}`, other.token));
      answers.push(await call('POST', `/v1/hooks/${id}/rotate-secret`, other.token));
    }
    for (const answer of answers) isProblem(answer, 404, 'not_found');
    assert.equal(new Set(answers.map((a) => JSON.stringify(withoutTraceId(a.body)))).size, 1);
    assert.equal((await call('GET', `/v1/hooks/${hook.id}`, user.token)).status, 200);

    assert.equal((await call('DELETE', `/v1/hooks/${hook.id}`, user.token)).status, 204);
    isProblem(await call('DELETE', `/v1/hooks/${hook.id}`, user.token), 404, 'not_found');
    isProblem(await call('GET', `/v1/hooks/${hook.id}`, user.token), 404, 'not_found');
    isProblem(await post(hook.url, sign(hook.secret, { n: 1 })), 404, 'not_found');
  });
});

describe('hooks: events', () => {
  test('a signed event starts a request of the hook’s version with the body as payload, and it completes', async () => {
    const hook = await newHook();
    const event = sign(hook.secret, { n: 41, note: 'hello' });
    const accepted = await post(hook.url, event);
    assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
    assert.deepEqual(Object.keys(accepted.body), ['workflow_request_id']);
    const id = accepted.body.workflow_request_id as string;
    const tree = await settledTree(api, id);
    assert.equal(tree.workflow_request.status, 'completed');
    assert.deepEqual(tree.node_executions[0]?.output_data, { n: 42 });
    const request = await api('GET', `/v1/workflow-requests/${id}`);
    assert.equal(request.status, 200);
    assert.deepEqual(request.body.payload, { n: 41, note: 'hello' });
    assert.equal(request.body.workflow_version_id, hook.workflow_version_id);
    assert.deepEqual(request.body.metadata, { hook_id: hook.id, webhook_id: event.headers['webhook-id'] });
  });

  test('a tampered body, another secret, an old or future timestamp, a missing header: 401, nothing started', async () => {
    const hook = await newHook();
    const good = sign(hook.secret, { n: 1 });
    const stranger = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const refused = [
      { body: JSON.stringify({ n: 2 }), headers: good.headers },
      sign(stranger, { n: 1 }),
      sign(hook.secret, { n: 1 }, { at: new Date(Date.now() - 6 * 60_000) }),
      sign(hook.secret, { n: 1 }, { at: new Date(Date.now() + 6 * 60_000) }),
      ...['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => {
        const { [name]: _, ...headers } = good.headers;
        return { body: good.body, headers };
      }),
      { body: good.body, headers: { ...good.headers, 'webhook-signature': 'v1,AAAA' } },
    ];
    for (const event of refused) isProblem(await post(hook.url, event), 401, 'invalid_signature');
    // Among several signatures, one that matches is enough.
    const several = { ...good, headers: { ...good.headers, 'webhook-signature': `v1,AAAA ${good.headers['webhook-signature']}` } };
    assert.equal((await post(hook.url, several)).status, 202);
    const requests = await requestsOf((await api('GET', `/v1/workflow-requests/${(await post(hook.url, several)).body.workflow_request_id}`)).body.workflow_id);
    assert.equal(requests.length, 1);
  });

  test('unknown and malformed hooks are 404; a body above 256 KiB is 413; not JSON or not an object is 400', async () => {
    const hook = await newHook();
    isProblem(await post(eventsUrl(`hook_${'0'.repeat(9)}${'B'.repeat(16)}`), sign(hook.secret, { n: 1 })), 404, 'not_found');
    isProblem(await post(eventsUrl('nope'), sign(hook.secret, { n: 1 })), 404, 'not_found');

    const big = { n: 1, pad: 'x'.repeat(256 * 1024) };
    isProblem(await post(hook.url, sign(hook.secret, big)), 413, 'payload_too_large');
    const justFits = JSON.stringify({ n: 1, pad: '' });
    const exact = JSON.stringify({ n: 1, pad: 'x'.repeat(256 * 1024 - justFits.length) });
    assert.equal(Buffer.byteLength(exact), 256 * 1024);
    assert.equal((await post(hook.url, sign(hook.secret, undefined, { body: exact }))).status, 202);

    isProblem(await post(hook.url, sign(hook.secret, undefined, { body: '{"n": 1' })), 400, 'invalid_json');
    isProblem(await post(hook.url, sign(hook.secret, [1, 2])), 400, 'invalid_body');
    isProblem(await post(hook.url, sign(hook.secret, 'text')), 400, 'invalid_body');
  });

  test('a replayed webhook-id answers the first answer and starts nothing, one after another and five at once', async () => {
    const hook = await newHook();
    const workflowId = (await api('GET', `/v1/workflow-requests/${(await post(hook.url, sign(hook.secret, { n: 0 }))).body.workflow_request_id}`)).body
      .workflow_id as string;

    const id = `msg_${randomUUID()}`;
    const first = await post(hook.url, sign(hook.secret, { n: 1 }, { id }));
    assert.equal(first.status, 202);
    // Redelivered later, signed again (a new timestamp), even with another body: the first answer.
    const again = await post(hook.url, sign(hook.secret, { n: 2 }, { id, at: new Date(Date.now() + 2000) }));
    assert.equal(again.status, 202);
    assert.deepEqual(again.body, first.body);

    const concurrentId = `msg_${randomUUID()}`;
    const event = sign(hook.secret, { n: 3 }, { id: concurrentId });
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(hook.url, event)));
    for (const answer of answers) assert.equal(answer.status, 202, JSON.stringify(answer.body));
    assert.equal(new Set(answers.map((a) => a.body.workflow_request_id)).size, 1);

    const requests = await requestsOf(workflowId);
    assert.equal(requests.length, 3);
    assert.equal(requests.filter((r) => r.id === answers[0]!.body.workflow_request_id).length, 1);
    assert.equal(requests.filter((r) => r.id === first.body.workflow_request_id).length, 1);
  });

  test('after a rotation the new and the old secret both verify; the new secret is shown once', async () => {
    const hook = await newHook();
    const rotated = await call('POST', `/v1/hooks/${hook.id}/rotate-secret`, user.token);
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    assert.match(rotated.body.secret, /^whsec_/);
    assert.notEqual(rotated.body.secret, hook.secret);
    assert.ok(rotated.body.secret_rotated_at);
    const overlap = Date.parse(rotated.body.previous_secret_expires_at) - Date.parse(rotated.body.secret_rotated_at);
    assert.equal(overlap, 24 * 3600 * 1000);
    const got = (await call('GET', `/v1/hooks/${hook.id}`, user.token)).body;
    assert.equal(got.secret, undefined);
    assert.equal(got.previous_secret_expires_at, rotated.body.previous_secret_expires_at);

    const byNew = await post(hook.url, sign(rotated.body.secret, { n: 1 }));
    const byOld = await post(hook.url, sign(hook.secret, { n: 2 }));
    assert.equal(byNew.status, 202);
    assert.equal(byOld.status, 202);
    assert.notEqual(byNew.body.workflow_request_id, byOld.body.workflow_request_id);

    // A second rotation: the first secret is no longer one of the two.
    const second = (await call('POST', `/v1/hooks/${hook.id}/rotate-secret`, user.token)).body;
    isProblem(await post(hook.url, sign(hook.secret, { n: 3 })), 401, 'invalid_signature');
    assert.equal((await post(hook.url, sign(rotated.body.secret, { n: 4 }))).status, 202);
    assert.equal((await post(hook.url, sign(second.secret, { n: 5 }))).status, 202);
  });

  test('events count against the account’s request rate: past its burst, 429 rate_limited with Retry-After, nothing started for them', async () => {
    const owner = await signedUpUser(stack, { plan: 'pro', rps: 'plan' });
    const hook = await newHook(owner.token);
    await adminCommands(stack.table)['account:set-limits']({ 'account-id': owner.accountId, rps: '1' });
    // The bearer calls above leave the 2-second window first, so the burst (2) is the events' alone.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const answers = await Promise.all([1, 2, 3, 4].map((n) => post(hook.url, sign(hook.secret, { n }))));
    const refused = answers.filter((a) => a.status === 429);
    assert.deepEqual(answers.map((a) => a.status).sort(), [202, 202, 429, 429], JSON.stringify(answers.map((a) => a.body)));
    for (const answer of refused) {
      isProblem(answer, 429, 'rate_limited');
      assert.ok(Number(answer.headers.get('retry-after')) >= 1);
    }
  });

  test('an account with a full usage window gets the 429 quota document at event time; a replay still answers the first answer', async () => {
    const owner = await signedUpUser(stack);
    const hook = await newHook(owner.token);
    const ownerApi = apiFor(
      () => stack.url,
      () => owner.token,
    );
    await adminCommands(stack.table)['account:set-limits']({ 'account-id': owner.accountId, 'five-hour-usd': '0.000001' });
    // Nothing used yet: the first event is funded, and its request fills the window.
    const firstEvent = sign(hook.secret, { n: 1 });
    const first = await post(hook.url, firstEvent);
    assert.equal(first.status, 202, JSON.stringify(first.body));
    await settledTree(ownerApi, first.body.workflow_request_id);

    const refusedEvent = sign(hook.secret, { n: 2 });
    const refused = await post(hook.url, refusedEvent);
    isProblem(refused, 429, 'usage_window_exceeded');
    assert.equal(refused.body.mode, 'blocked');
    assert.equal(refused.body.error, 'usage_window_exceeded');
    assert.equal(refused.headers.get('retry-after'), String(refused.body.retry_after_seconds));

    assert.deepEqual((await post(hook.url, firstEvent)).body, first.body);

    // Nothing was remembered for the refused event: once the window has room, its redelivery starts it.
    await adminCommands(stack.table)['account:set-limits']({ 'account-id': owner.accountId, reset: true });
    const retried = await post(hook.url, {
      ...refusedEvent,
      headers: sign(hook.secret, undefined, { id: refusedEvent.headers['webhook-id'], body: refusedEvent.body }).headers,
    });
    assert.equal(retried.status, 202, JSON.stringify(retried.body));
  });
});

describe('hooks: how deep an event may nest', () => {
  const nested = (levels: number): Json => {
    let value: Json = { n: 1 };
    for (let i = 1; i < levels; i++) value = { a: value };
    return value;
  };
  const tooDeep = (answer: JsonAnswer, name: string) => {
    isProblem(answer, 422, 'validation_failed');
    assert.deepEqual(
      answer.body.errors.map((e: Json) => [e.name, e.location, e.code]),
      [[name, 'body', 'too_deep']],
    );
  };

  test('at the bound the event’s request runs to its end; one past is 422 naming the body, thousands deep 422 naming its field; nothing started', async () => {
    const v = await createVersion(api, [transform('a', '$')], []);
    const hook = await newHook(user.token, v);
    tooDeep(await post(hook.url, sign(hook.secret, nested(JSON_MAX_DEPTH + 1))), '');
    tooDeep(await post(hook.url, sign(hook.secret, null, { body: `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}` })), '/a');
    assert.deepEqual(await requestsOf(v.workflow_id), []);

    const accepted = await post(hook.url, sign(hook.secret, nested(JSON_MAX_DEPTH)));
    assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
    const tree = await settledTree(api, accepted.body.workflow_request_id);
    assert.equal(tree.workflow_request.status, 'completed', JSON.stringify(tree.workflow_request.error));
    assert.deepEqual(tree.node_executions[0]?.output_data, nested(JSON_MAX_DEPTH));
  });
});
