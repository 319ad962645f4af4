import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { formatToken, tokenHash } from '#accounts/api-tokens.js';
import { tokensRepo } from '#accounts/tokens-repository.js';
import { newMachineId, newTokenId } from '#platform/ids.js';
import { keys } from '#platform/table/keys.js';
import { badListQueries, type Json, type JsonAnswer, jsonCaller, withoutTraceId } from '../helpers/api.js';
import { createAccount, signedUpUser, startTestStack } from '../helpers/stack.js';

let stack: Awaited<ReturnType<typeof startTestStack>>;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

const call = jsonCaller(() => stack.url);
const get = (path: string, token: string) => call('GET', path, token);
const create = (token: string, body: unknown = { name: `m ${randomUUID().slice(0, 8)}` }, headers: Record<string, string> = {}) =>
  call('POST', '/v1/machines', token, body, headers);
const remove = (id: string, token: string) => call('DELETE', `/v1/machines/${id}`, token);

async function newMachine(token: string, body?: unknown): Promise<Json> {
  const created = await create(token, body);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

/** Every machine of the account, following the cursor. */
async function listAll(token: string, limit = 100): Promise<Json[]> {
  const machines: Json[] = [];
  let cursor: string | null = null;
  do {
    const page = await get(`/v1/machines?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, token);
    assert.equal(page.status, 200, JSON.stringify(page.body));
    machines.push(...page.body.machines);
    cursor = page.body.next_cursor;
  } while (cursor);
  return machines;
}

/** The counter the limit is checked against, as stored. */
async function storedCount(accountId: string): Promise<number | undefined> {
  const { Item } = await stack.table.db.send(new GetCommand({ TableName: stack.tableName, Key: keys.machineCount(accountId), ConsistentRead: true }));
  return Item?.machine_count as number | undefined;
}

/** A free account cannot mint tokens through the API (decisions.md, Plans), so its token is stored directly. */
async function freeUser() {
  const account = await createAccount(stack.table, { plan: 'free' });
  const token = formatToken(account.accountId);
  const now = new Date();
  await tokensRepo(stack.table).create({
    id: newTokenId(),
    account_id: account.accountId,
    name: 'test',
    token_hash: tokenHash(token),
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + 3_600_000).toISOString(),
  });
  return { ...account, token };
}

const isLimitProblem = (response: JsonAnswer, limit: number) => {
  assert.equal(response.status, 402, JSON.stringify(response.body));
  assert.equal(response.type, 'application/problem+json');
  assert.equal(response.body.code, 'machine_limit_reached');
  assert.equal(response.body.title, 'Payment Required');
  assert.equal(response.body.status, 402);
  assert.match(response.body.type, /\/machine_limit_reached$/);
  assert.equal(response.body.limit, limit);
  assert.equal(typeof response.body.detail, 'string');
  assert.equal(typeof response.body.trace_id, 'string');
};

describe('machines', () => {
  test('create answers 201 with an idle machine; get returns it; size defaults to small', async () => {
    const user = await signedUpUser(stack);
    const created = await create(user.token, { name: '  builder  ', size: 'large' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const machine = created.body;
    assert.deepEqual(Object.keys(machine).sort(), ['created_at', 'current_run_id', 'id', 'name', 'queued_runs', 'size', 'status']);
    assert.match(machine.id, /^mch_[0-9a-z]{9}[A-Za-z0-9_-]{16}$/);
    assert.deepEqual([machine.name, machine.size, machine.status, machine.current_run_id, machine.queued_runs], ['builder', 'large', 'idle', null, 0]);
    assert.ok(!Number.isNaN(Date.parse(machine.created_at)));
    const fetched = await get(`/v1/machines/${machine.id}`, user.token);
    assert.equal(fetched.status, 200);
    assert.deepEqual(fetched.body, machine);
    assert.equal((await newMachine(user.token, { name: 'plain' })).size, 'small');
  });

  test('create input: missing or blank name and a bad size 422, unknown field 400, no token 401', async () => {
    const user = await signedUpUser(stack);
    const cases: Array<[unknown, number, string, string | undefined]> = [
      [{}, 422, 'validation_failed', '/name'],
      [{ name: '   ' }, 422, 'validation_failed', '/name'],
      [{ name: 'x'.repeat(201) }, 422, 'validation_failed', '/name'],
      [{ name: 7 }, 422, 'validation_failed', '/name'],
      [{ name: 'x', size: 'huge' }, 422, 'validation_failed', '/size'],
      [{ name: 'x', owner: 'me' }, 400, 'unknown_field', '/owner'],
      ['[1]', 400, 'invalid_body', undefined],
      ['{"name":', 400, 'invalid_json', undefined],
    ];
    for (const [body, status, code, pointer] of cases) {
      const response = await create(user.token, body);
      assert.equal(response.status, status, JSON.stringify(body));
      assert.equal(response.type, 'application/problem+json');
      assert.equal(response.body.code, code, JSON.stringify(body));
      if (pointer)
        assert.deepEqual(
          response.body.errors.map((e: Json) => [e.name, e.location]),
          [[pointer, 'body']],
          JSON.stringify(body),
        );
    }
    assert.deepEqual(await listAll(user.token), [], 'no refused create made a machine');
    assert.equal((await create(user.token, { name: 'x'.repeat(200) })).status, 201);
    const anonymous = await fetch(`${stack.url}/v1/machines`, { method: 'POST', body: '{"name":"x"}' });
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.headers.get('www-authenticate'), 'Bearer realm="workflow-service"');
  });

  test('list is newest first and pages by cursor, with the consistent view of what was just created', async () => {
    const user = await signedUpUser(stack, { plan: 'team' });
    const names = ['one', 'two', 'three', 'four', 'five'];
    for (const name of names) await newMachine(user.token, { name });
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await get(`/v1/machines?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, user.token);
      assert.equal(page.status, 200);
      assert.deepEqual(Object.keys(page.body).sort(), ['has_more', 'machines', 'next_cursor']);
      assert.equal(page.body.has_more, page.body.next_cursor !== null);
      assert.ok(page.body.machines.length <= 2);
      seen.push(...page.body.machines.map((m: Json) => m.name));
      cursor = page.body.next_cursor;
      pages++;
    } while (cursor);
    assert.equal(pages, 3);
    assert.deepEqual(seen, [...names].reverse());
    const all = await get('/v1/machines', user.token);
    assert.deepEqual([all.body.machines.length, all.body.has_more, all.body.next_cursor], [5, false, null]);
    assert.deepEqual(
      all.body.machines.map((m: Json) => m.status),
      ['idle', 'idle', 'idle', 'idle', 'idle'],
    );
    // Exactly a page: no next page to promise.
    const exact = await get('/v1/machines?limit=5', user.token);
    assert.deepEqual([exact.body.machines.length, exact.body.has_more, exact.body.next_cursor], [5, false, null]);
  });

  test("bad list parameters and another account's cursor are 400", async () => {
    const user = await signedUpUser(stack);
    const other = await signedUpUser(stack);
    await newMachine(other.token);
    await newMachine(other.token);
    const foreign = (await get('/v1/machines?limit=1', other.token)).body.next_cursor as string;
    assert.equal(typeof foreign, 'string');
    for (const [query, code] of badListQueries(foreign)) {
      const response = await get(`/v1/machines${query}`, user.token);
      assert.equal(response.status, 400, query);
      assert.equal(response.type, 'application/problem+json');
      assert.equal(response.body.code, code, query);
    }
    assert.equal((await get('/v1/machines?limit=100', user.token)).status, 200);
  });

  test("malformed, unknown and another account's machine ids answer the same 404 on get and delete", async () => {
    const user = await signedUpUser(stack);
    const other = await signedUpUser(stack);
    const foreign = await newMachine(other.token);
    const bodies: Json[][] = [];
    for (const id of ['not-a-machine', newMachineId(), foreign.id]) {
      const answers: Json[] = [];
      for (const response of [await get(`/v1/machines/${id}`, user.token), await remove(id, user.token)]) {
        assert.equal(response.status, 404, id);
        assert.equal(response.type, 'application/problem+json');
        assert.equal(response.body.code, 'not_found');
        answers.push(withoutTraceId(response.body));
      }
      bodies.push(answers);
    }
    assert.deepEqual(bodies[0], bodies[1]);
    assert.deepEqual(bodies[0], bodies[2]);
    assert.deepEqual(bodies[0]![0], bodies[0]![1], 'get and delete answer alike');
    // The other account's machine is untouched.
    assert.equal((await get(`/v1/machines/${foreign.id}`, other.token)).status, 200);
    assert.equal(await storedCount(other.accountId), 1);
  });

  test('delete answers 204, the machine is gone, and deleting it again is 404', async () => {
    const user = await signedUpUser(stack);
    const machine = await newMachine(user.token);
    const kept = await newMachine(user.token);
    const deleted = await remove(machine.id, user.token);
    assert.equal(deleted.status, 204);
    assert.equal(deleted.body, undefined);
    assert.equal((await get(`/v1/machines/${machine.id}`, user.token)).status, 404);
    const again = await remove(machine.id, user.token);
    assert.equal(again.status, 404);
    assert.equal(again.body.code, 'not_found');
    assert.deepEqual(
      (await listAll(user.token)).map((m) => m.id),
      [kept.id],
    );
    assert.equal(await storedCount(user.accountId), 1);
  });
});

describe('the plan’s machine limit', () => {
  test('20 concurrent creates on a pro account make exactly 3 machines; the other 17 are 402 machine_limit_reached', async () => {
    const user = await signedUpUser(stack, { plan: 'pro' });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => create(user.token, { name: `racer ${i}` })));
    const created = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status !== 201);
    assert.equal(created.length, 3, JSON.stringify(answers.map((a) => a.status)));
    assert.equal(refused.length, 17);
    for (const answer of refused) isLimitProblem(answer, 3);
    const listed = await listAll(user.token, 1);
    assert.deepEqual(listed.map((m) => m.id).sort(), created.map((a) => a.body.id).sort());
    assert.equal(await storedCount(user.accountId), 3);
    isLimitProblem(await create(user.token), 3);
  });

  test("a free account's second machine is 402; deleting the first frees the slot", async () => {
    const user = await freeUser();
    const first = await newMachine(user.token);
    isLimitProblem(await create(user.token), 1);
    assert.equal((await remove(first.id, user.token)).status, 204);
    assert.equal(await storedCount(user.accountId), 0);
    const second = await newMachine(user.token);
    assert.deepEqual(
      (await listAll(user.token)).map((m) => m.id),
      [second.id],
    );
    isLimitProblem(await create(user.token), 1);
  });

  test('deleting frees a slot on a full pro account', async () => {
    const user = await signedUpUser(stack, { plan: 'pro' });
    const machines = [await newMachine(user.token), await newMachine(user.token), await newMachine(user.token)];
    isLimitProblem(await create(user.token), 3);
    assert.equal((await remove(machines[1]!.id, user.token)).status, 204);
    await newMachine(user.token);
    isLimitProblem(await create(user.token), 3);
    assert.equal((await listAll(user.token)).length, 3);
  });

  test('a create retried with the same Idempotency-Key at the limit answers the first 201 again and takes no second slot', async () => {
    const user = await freeUser();
    const key = { 'Idempotency-Key': `create-${randomUUID()}` };
    const body = { name: 'only', size: 'medium' };
    const first = await create(user.token, body, key);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.headers.get('idempotency-replayed'), null);
    const retried = await create(user.token, body, key);
    assert.equal(retried.status, 201, JSON.stringify(retried.body));
    assert.equal(retried.headers.get('idempotency-replayed'), 'true');
    assert.deepEqual(retried.body, first.body);
    assert.equal(await storedCount(user.accountId), 1);
    assert.deepEqual(
      (await listAll(user.token)).map((m) => m.id),
      [first.body.id],
    );
    // Another key is another create, refused at the limit; the same key with another body is a conflict.
    isLimitProblem(await create(user.token, body, { 'Idempotency-Key': `create-${randomUUID()}` }), 1);
    const conflict = await create(user.token, { name: 'other' }, key);
    assert.equal(conflict.status, 409);
    assert.equal(conflict.body.code, 'idempotency_key_conflict');
    // A refused create stores no answer: after a delete the same key creates.
    const refusedKey = { 'Idempotency-Key': `create-${randomUUID()}` };
    isLimitProblem(await create(user.token, body, refusedKey), 1);
    assert.equal((await remove(first.body.id, user.token)).status, 204);
    assert.equal((await create(user.token, body, refusedKey)).status, 201);
    assert.equal((await create(user.token, body, { 'Idempotency-Key': ' ' })).body.code, 'idempotency_key_invalid');
  });
});

describe('deleting a machine with runs', () => {
  /** What the runs feature will maintain on the machine item, set directly. */
  const setRunFields = (accountId: string, id: string, fields: { current_run_id: string | null; queued_runs: number }) =>
    stack.table.db.send(
      new UpdateCommand({
        TableName: stack.tableName,
        Key: keys.machine(accountId, id),
        UpdateExpression: 'SET current_run_id = :run, queued_runs = :queued',
        ExpressionAttributeValues: { ':run': fields.current_run_id, ':queued': fields.queued_runs },
      }),
    );

  test('a machine with a running or waiting run, or queued runs, is 409 machine_busy and stays; idle again, it deletes', async () => {
    const user = await signedUpUser(stack);
    const machine = await newMachine(user.token);
    for (const fields of [
      { current_run_id: 'run_0000000001', queued_runs: 0 },
      { current_run_id: null, queued_runs: 2 },
      { current_run_id: 'run_0000000001', queued_runs: 1 },
    ]) {
      await setRunFields(user.accountId, machine.id, fields);
      const shown = await get(`/v1/machines/${machine.id}`, user.token);
      assert.deepEqual([shown.body.status, shown.body.current_run_id, shown.body.queued_runs], ['busy', fields.current_run_id, fields.queued_runs]);
      const refused = await remove(machine.id, user.token);
      assert.equal(refused.status, 409, JSON.stringify(fields));
      assert.equal(refused.type, 'application/problem+json');
      assert.equal(refused.body.code, 'machine_busy');
      assert.equal((await get(`/v1/machines/${machine.id}`, user.token)).status, 200);
      assert.equal(await storedCount(user.accountId), 1);
    }
    await setRunFields(user.accountId, machine.id, { current_run_id: null, queued_runs: 0 });
    assert.equal((await get(`/v1/machines/${machine.id}`, user.token)).body.status, 'idle');
    assert.equal((await remove(machine.id, user.token)).status, 204);
    assert.equal(await storedCount(user.accountId), 0);
  });

  test('concurrent deletes of one machine: one 204, the rest 404, and the counter goes down once', async () => {
    const user = await signedUpUser(stack, { plan: 'team' });
    const machine = await newMachine(user.token);
    const kept = await newMachine(user.token);
    assert.equal(await storedCount(user.accountId), 2);
    const answers = await Promise.all(Array.from({ length: 10 }, () => remove(machine.id, user.token)));
    assert.deepEqual(answers.map((a) => a.status).sort(), [204, 404, 404, 404, 404, 404, 404, 404, 404, 404]);
    for (const answer of answers.filter((a) => a.status === 404)) assert.equal(answer.body.code, 'not_found');
    assert.equal(await storedCount(user.accountId), 1);
    assert.deepEqual(
      (await listAll(user.token)).map((m) => m.id),
      [kept.id],
    );
  });
});
