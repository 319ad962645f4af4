import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, test, vi } from 'vitest';
import { JSON_MAX_DEPTH } from '#platform/config/limits.js';
import { keys } from '#platform/table/keys.js';
import { type Json, jsonCaller, withoutTraceId } from '../helpers/api.js';
import { assertTooDeep, nested } from '../helpers/deep-json.js';
import { queuesDrained } from '../helpers/queues.js';
import { newMachine } from '../helpers/runs.js';
import { signedUpUser, startTestStack } from '../helpers/stack.js';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let user: Awaited<ReturnType<typeof signedUpUser>>;
let other: Awaited<ReturnType<typeof signedUpUser>>;

beforeAll(async () => {
  stack = await startTestStack();
  [user, other] = await Promise.all([signedUpUser(stack, { plan: 'team' }), signedUpUser(stack, { plan: 'team' })]);
});
afterAll(async () => {
  await stack.stop();
});

const call = jsonCaller(() => stack.url);
const post = (path: string, body: unknown, token = user.token) => call('POST', path, token, body, { 'Idempotency-Key': randomUUID() });
const get = (path: string, token = user.token) => call('GET', path, token);
const act = (id: string, action: 'complete' | 'cancel', token = user.token) => call('POST', `/v2/evaluations/${id}/${action}`, token);

async function harness(model = 'local/echo', token = user.token): Promise<string> {
  const files = [
    { path: 'harness.json', content: JSON.stringify({ model, instructions: 'prompt.md' }) },
    { path: 'prompt.md', content: 'You are evaluated.' },
  ];
  const created = await post('/v2/harnesses', { name: `h ${randomUUID().slice(0, 6)}`, files }, token);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.id;
}

const machine = (token = user.token) => newMachine(call, token);

async function startRun(harnessId: string, machineId: string, input: unknown, token = user.token): Promise<Json> {
  const created = await post('/v2/runs', { harness_id: harnessId, machine_id: machineId, input }, token);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

const ended = (status: string) => ['completed', 'failed', 'cancelled'].includes(status);

async function runEnded(id: string, token = user.token): Promise<Json> {
  let last: Json = {};
  await vi.waitFor(
    async () => {
      last = (await get(`/v2/runs/${id}`, token)).body;
      assert.ok(ended(last.status), `run ${id} is ${last.status}`);
    },
    { timeout: 30_000, interval: 50 },
  );
  return last;
}

async function evaluation(body: Record<string, unknown>, token = user.token): Promise<Json> {
  const created = await post('/v2/evaluations', body, token);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

/** The evaluation once `until` holds for it. */
async function evaluationWhen(id: string, until: (e: Json) => boolean, timeout = 30_000): Promise<Json> {
  let last: Json = {};
  await vi.waitFor(
    async () => {
      last = (await get(`/v2/evaluations/${id}`)).body;
      assert.ok(until(last), `evaluation ${id} is ${JSON.stringify(last)}`);
    },
    { timeout, interval: 100 },
  );
  return last;
}

const record = (id: string, body: Record<string, unknown>, token = user.token) => post(`/v2/evaluations/${id}/attempts`, body, token);

/** The account's event record, oldest first. */
async function accountEvents(accountId: string): Promise<Json[]> {
  const { Items } = await stack.table.db.send(
    new QueryCommand({
      TableName: stack.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.accountEventPartition(accountId) },
      ConsistentRead: true,
    }),
  );
  return Items ?? [];
}

/** The account's runs of a harness (every page). */
async function runsOf(harnessId: string): Promise<Json[]> {
  const runs: Json[] = [];
  let cursor: string | undefined;
  do {
    const page = await get(`/v2/runs?harness_id=${harnessId}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    runs.push(...page.body.data);
    cursor = page.body.page.next_cursor ?? undefined;
  } while (cursor);
  return runs;
}

describe('creating an evaluation', () => {
  test('201 running with its cases; every bad field is a 422 naming it, unknown and foreign harness or machine alike', async () => {
    const [harnessId, machineId, foreignHarness, foreignMachine] = await Promise.all([
      harness(),
      machine(),
      harness('local/echo', other.token),
      machine(other.token),
    ]);
    const base = { name: 'smoke', harness_id: harnessId, machine_id: machineId, attempts_per_case: 2, cases: [{ id: 'a', input: 'hi' }] };
    const created = await evaluation({
      ...base,
      cases: [
        { id: 'a', input: 'hi', expected: { type: 'exact', value: 'hi' } },
        { id: 'b', input: { steps: [] } },
      ],
    });
    assert.match(created.id, /^eval_/);
    assert.equal(created.status, 'running');
    assert.equal(created.run, false);
    assert.deepEqual([created.case_count, created.attempts_per_case, created.attempt_count, created.recorded_attempts], [2, 2, 4, 0]);
    assert.deepEqual(created.cases, [
      { id: 'a', input: 'hi', expected: { type: 'exact', value: 'hi' }, attempts: [] },
      { id: 'b', input: { steps: [] }, expected: null, attempts: [] },
    ]);
    assert.equal(created.results, null);

    const refused = async (body: Record<string, unknown>, name: string, code = 'validation_failed') => {
      const answer = await post('/v2/evaluations', body);
      assert.equal(answer.status, 422, JSON.stringify(answer.body));
      assert.equal(answer.body.code, code);
      if (code === 'validation_failed')
        assert.deepEqual(
          answer.body.errors.map((e: Json) => e.name),
          [name],
          JSON.stringify(answer.body),
        );
      return answer.body;
    };
    await refused(
      {
        ...base,
        cases: [
          { id: 'a', input: 'x' },
          { id: 'b', input: 'y' },
          { id: 'a', input: 'z' },
        ],
      },
      '/cases/2/id',
    );
    await refused({ ...base, attempts_per_case: 0 }, '/attempts_per_case');
    await refused({ ...base, attempts_per_case: 11 }, '/attempts_per_case');
    await refused({ ...base, attempts_per_case: 1.5 }, '/attempts_per_case');
    await refused({ ...base, cases: [] }, '/cases');
    await refused({ ...base, cases: Array.from({ length: 51 }, (_, i) => ({ id: `c${i}`, input: 'x' })) }, '/cases');
    await refused({ ...base, name: '' }, '/name');
    await refused({ ...base, cases: [{ id: 'a', input: 'x', expected: { type: 'regex', value: '(' } }] }, '/cases/0/expected/value');
    await refused({ ...base, cases: [{ id: 'a', input: 'x', expected: { type: 'jsonata', value: 'output = ' } }] }, '/cases/0/expected/value');
    await refused({ ...base, cases: [{ id: 'a', input: 'x', expected: { type: 'fuzzy', value: 'x' } }] }, '/cases/0/expected/type');
    const { harness_id: _h, ...withoutHarness } = base;
    await refused(withoutHarness, '/harness_id');

    const unknownHarness = await refused({ ...base, harness_id: 'h_000000000AAAAAAAAAAAAAAAA' }, '/harness_id');
    const otherHarness = await refused({ ...base, harness_id: foreignHarness }, '/harness_id');
    assert.deepEqual(withoutTraceId(unknownHarness), withoutTraceId(otherHarness));
    const unknownMachine = await refused({ ...base, machine_id: 'mch_000000000AAAAAAAAAAAAAAAA' }, '/machine_id');
    const otherMachine = await refused({ ...base, machine_id: foreignMachine }, '/machine_id');
    assert.deepEqual(withoutTraceId(unknownMachine), withoutTraceId(otherMachine));

    const notRunnable = await harness('nosuch/model');
    await refused({ ...base, harness_id: notRunnable, run: true }, '', 'harness_not_runnable');
    assert.equal(
      (await post('/v2/evaluations', { ...base, harness_id: notRunnable })).status,
      201,
      'without run, the caller’s runs are checked, not the harness',
    );

    const noKey = await call('POST', '/v2/evaluations', user.token, base);
    assert.equal(noKey.status, 400);
    assert.equal(noKey.body.code, 'idempotency_key_required');
    const unknown = await post('/v2/evaluations', { ...base, extra: 1 });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.code, 'unknown_field');
    const key = randomUUID();
    const first = await call('POST', '/v2/evaluations', user.token, base, { 'Idempotency-Key': key });
    const replay = await call('POST', '/v2/evaluations', user.token, base, { 'Idempotency-Key': key });
    assert.equal(replay.status, 201);
    assert.equal(replay.body.id, first.body.id, 'a retry with the same key answers the first 201');
  });
});

describe('reading evaluations', () => {
  test('list pages newest first with a status filter; get answers cases and attempts; foreign, unknown and malformed ids are the same 404', async () => {
    const [harnessId, machineId] = await Promise.all([harness(), machine()]);
    const lister = await signedUpUser(stack, { plan: 'team' });
    const [h, m] = await Promise.all([harness('local/echo', lister.token), machine(lister.token)]);
    const ids: string[] = [];
    for (const name of ['one', 'two', 'three']) {
      ids.push((await evaluation({ name, harness_id: h, machine_id: m, attempts_per_case: 1, cases: [{ id: 'c', input: 'x' }] }, lister.token)).id);
    }
    assert.equal((await act(ids[0]!, 'cancel', lister.token)).status, 200);
    const first = await get('/v2/evaluations?limit=2', lister.token);
    assert.equal(first.status, 200);
    assert.deepEqual(
      first.body.data.map((e: Json) => e.id),
      [ids[2], ids[1]],
    );
    assert.equal(first.body.data[0].cases, undefined, 'a list shows no cases');
    assert.equal(first.body.page.has_more, true);
    const second = await get(`/v2/evaluations?limit=2&cursor=${encodeURIComponent(first.body.page.next_cursor)}`, lister.token);
    assert.deepEqual(
      second.body.data.map((e: Json) => e.id),
      [ids[0]],
    );
    assert.equal(second.body.page.has_more, false);
    assert.deepEqual(
      (await get('/v2/evaluations?status=cancelled', lister.token)).body.data.map((e: Json) => e.id),
      [ids[0]],
    );
    assert.deepEqual(
      (await get('/v2/evaluations?status=running', lister.token)).body.data.map((e: Json) => e.id),
      [ids[2], ids[1]],
    );
    const mismatch = await get(`/v2/evaluations?status=running&limit=2&cursor=${encodeURIComponent(first.body.page.next_cursor)}`, lister.token);
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.body.code, 'cursor_filter_mismatch');
    const foreignCursor = await get(`/v2/evaluations?limit=2&cursor=${encodeURIComponent(first.body.page.next_cursor)}`);
    assert.equal(foreignCursor.body.code, 'cursor_filter_mismatch', 'another account’s cursor');
    assert.equal((await get('/v2/evaluations?cursor=garbage')).body.code, 'cursor_invalid');
    assert.equal((await get('/v2/evaluations?limit=101')).body.code, 'invalid_parameter');
    assert.equal((await get('/v2/evaluations?status=done')).body.code, 'invalid_parameter');

    const own = await evaluation({ name: 'mine', harness_id: harnessId, machine_id: machineId, attempts_per_case: 1, cases: [{ id: 'c', input: 'x' }] });
    const got = await get(`/v2/evaluations/${own.id}`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, own);
    const answers = await Promise.all([
      get('/v2/evaluations/eval_000000000AAAAAAAAAAAAAAAA'),
      get('/v2/evaluations/not-an-evaluation'),
      get(`/v2/evaluations/${own.id}`, other.token),
      act(own.id, 'complete', other.token),
      act(own.id, 'cancel', other.token),
      record(own.id, { case_id: 'c', attempt_index: 0, run_id: 'run_000000000AAAAAAAAAAAAAAAA' }, other.token),
      act('eval_000000000AAAAAAAAAAAAAAAA', 'complete'),
    ]);
    for (const answer of answers) {
      assert.equal(answer.status, 404);
      assert.deepEqual(withoutTraceId(answer.body), withoutTraceId(answers[0]!.body));
    }
    assert.equal(answers[0]!.body.code, 'not_found');
  });
});

describe('recording attempts', () => {
  test('201, the same run again 200, another run 409 attempt_conflict; each bad reference a 422 naming it', async () => {
    const [harnessId, otherHarness, machineId] = await Promise.all([harness(), harness(), machine()]);
    const ev = await evaluation({
      name: 'rec',
      harness_id: harnessId,
      machine_id: machineId,
      attempts_per_case: 2,
      cases: [
        { id: 'a', input: 'x' },
        { id: 'b', input: 'y' },
      ],
    });
    const [r1, r2, r3, wrongHarness, foreign] = await Promise.all([
      startRun(harnessId, machineId, 'one'),
      startRun(harnessId, machineId, 'two'),
      startRun(harnessId, machineId, 'three'),
      startRun(otherHarness, machineId, 'other harness'),
      (async () => startRun(await harness('local/echo', other.token), await machine(other.token), 'foreign', other.token))(),
    ]);
    const created = await record(ev.id, { case_id: 'a', attempt_index: 0, run_id: r1.id });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.run_id, r1.id);
    assert.equal(created.body.case_id, 'a');
    const again = await record(ev.id, { case_id: 'a', attempt_index: 0, run_id: r1.id });
    assert.equal(again.status, 200);
    assert.equal(again.body.run_id, r1.id);
    const conflict = await record(ev.id, { case_id: 'a', attempt_index: 0, run_id: r2.id });
    assert.equal(conflict.status, 409);
    assert.equal(conflict.body.code, 'attempt_conflict');

    const refused = async (body: Record<string, unknown>, name: string) => {
      const answer = await record(ev.id, body);
      assert.equal(answer.status, 422, JSON.stringify(answer.body));
      assert.equal(answer.body.code, 'validation_failed');
      assert.deepEqual(
        answer.body.errors.map((e: Json) => e.name),
        [name],
      );
      return answer.body;
    };
    await refused({ case_id: 'a', attempt_index: 2, run_id: r2.id }, '/attempt_index');
    await refused({ case_id: 'a', attempt_index: -1, run_id: r2.id }, '/attempt_index');
    await refused({ case_id: 'zzz', attempt_index: 0, run_id: r2.id }, '/case_id');
    const unknownRun = await refused({ case_id: 'a', attempt_index: 1, run_id: 'run_000000000AAAAAAAAAAAAAAAA' }, '/run_id');
    const foreignRun = await refused({ case_id: 'a', attempt_index: 1, run_id: foreign.id }, '/run_id');
    assert.deepEqual(withoutTraceId(unknownRun), withoutTraceId(foreignRun));
    assert.equal((await refused({ case_id: 'a', attempt_index: 1, run_id: wrongHarness.id }, '/run_id')).errors[0].code, 'harness_mismatch');
    assert.equal((await refused({ case_id: 'b', attempt_index: 1, run_id: r1.id }, '/run_id')).errors[0].code, 'already_recorded');
    const noKey = await call('POST', `/v2/evaluations/${ev.id}/attempts`, user.token, { case_id: 'b', attempt_index: 0, run_id: r3.id });
    assert.equal(noKey.body.code, 'idempotency_key_required');

    assert.equal((await record(ev.id, { case_id: 'b', attempt_index: 1, run_id: r3.id })).status, 201);
    const got = (await get(`/v2/evaluations/${ev.id}`)).body;
    assert.equal(got.recorded_attempts, 2);
    assert.deepEqual(
      got.cases.map((c: Json) => c.attempts.map((a: Json) => [a.attempt_index, a.run_id])),
      [[[0, r1.id]], [[1, r3.id]]],
    );
  });

  test('two different runs recorded at once for one slot: exactly one 201 and one 409', async () => {
    const [harnessId, machineId] = await Promise.all([harness(), machine()]);
    const ev = await evaluation({
      name: 'race',
      harness_id: harnessId,
      machine_id: machineId,
      attempts_per_case: 5,
      cases: [{ id: 'a', input: 'x' }],
    });
    const runs: Json[] = [];
    for (let i = 0; i < 10; i++) runs.push(await startRun(harnessId, machineId, `r${i}`));
    for (let slot = 0; slot < 5; slot++) {
      const answers = await Promise.all([0, 1].map((k) => record(ev.id, { case_id: 'a', attempt_index: slot, run_id: runs[slot * 2 + k]!.id })));
      assert.deepEqual(answers.map((a) => a.status).sort(), [201, 409], JSON.stringify(answers.map((a) => a.body)));
      assert.equal(answers.find((a) => a.status === 409)!.body.code, 'attempt_conflict');
      const winner = answers.find((a) => a.status === 201)!.body.run_id;
      const held = (await get(`/v2/evaluations/${ev.id}`)).body.cases[0].attempts.find((a: Json) => a.attempt_index === slot);
      assert.equal(held.run_id, winner);
    }
    assert.equal((await get(`/v2/evaluations/${ev.id}`)).body.recorded_attempts, 5);
  });
});

describe('completing and cancelling', () => {
  test('complete: 409 evaluation_incomplete naming each case that misses attempts, then 200 completed with pass rates and its event', async () => {
    const [harnessId, machineId] = await Promise.all([harness(), machine()]);
    const ev = await evaluation({
      name: 'by hand',
      harness_id: harnessId,
      machine_id: machineId,
      attempts_per_case: 2,
      cases: [
        { id: 'exact', input: 'alpha beta', expected: { type: 'exact', value: 'alpha beta' } },
        { id: 'contains', input: 'gamma', expected: { type: 'contains', value: 'delta' } },
        { id: 'plain', input: 'no check' },
      ],
    });
    const runs: Record<string, Json[]> = { exact: [], contains: [], plain: [] };
    for (const c of ev.cases) for (let i = 0; i < 2; i++) runs[c.id]!.push(await startRun(harnessId, machineId, c.input));
    for (const list of Object.values(runs)) for (const run of list) await runEnded(run.id);
    assert.equal((await record(ev.id, { case_id: 'exact', attempt_index: 0, run_id: runs.exact![0]!.id })).status, 201);
    assert.equal((await record(ev.id, { case_id: 'plain', attempt_index: 1, run_id: runs.plain![1]!.id })).status, 201);

    const incomplete = await act(ev.id, 'complete');
    assert.equal(incomplete.status, 409);
    assert.equal(incomplete.body.code, 'evaluation_incomplete');
    assert.deepEqual(
      incomplete.body.errors.map((e: Json) => [e.name, e.code]),
      [
        ['exact', 'attempts_missing'],
        ['contains', 'attempts_missing'],
        ['plain', 'attempts_missing'],
      ],
    );
    assert.match(incomplete.body.errors[1].reason, /0, 1/);
    assert.match(incomplete.body.errors[0].reason, /\b1\b/);

    for (const [caseId, list] of Object.entries(runs)) {
      for (const [index, run] of list.entries())
        assert.ok([200, 201].includes((await record(ev.id, { case_id: caseId, attempt_index: index, run_id: run.id })).status));
    }
    const completed = await act(ev.id, 'complete');
    assert.equal(completed.status, 200, JSON.stringify(completed.body));
    assert.equal(completed.body.status, 'completed');
    assert.ok(completed.body.completed_at);
    assert.deepEqual(completed.body.results, {
      per_case: [
        { case_id: 'exact', attempts: 2, passed: 2, pass_rate: 1, run_statuses: { completed: 2 } },
        { case_id: 'contains', attempts: 2, passed: 0, pass_rate: 0, run_statuses: { completed: 2 } },
        { case_id: 'plain', attempts: 2, passed: null, pass_rate: null, run_statuses: { completed: 2 } },
      ],
      pass_rate: 0.5,
    });
    const attempt = completed.body.cases[0].attempts[0];
    assert.deepEqual([attempt.run_status, attempt.passed, attempt.check_error], ['completed', true, null]);
    assert.deepEqual((await get(`/v2/evaluations/${ev.id}`)).body, completed.body);

    const events = (await accountEvents(user.accountId)).filter((e) => e.data.id === ev.id);
    assert.equal(events.length, 1, 'one evaluation.completed event');
    assert.equal(events[0]!.type, 'evaluation.completed');
    assert.deepEqual(events[0]!.data.results, completed.body.results);
    assert.ok(events[0]!.ttl > Date.now() / 1000 + 29 * 24 * 3600, 'kept 30 days');

    const twice = await act(ev.id, 'complete');
    assert.equal(twice.status, 409);
    assert.equal(twice.body.code, 'evaluation_completed');
    assert.equal((await act(ev.id, 'cancel')).body.code, 'evaluation_completed');
    const late = await record(ev.id, { case_id: 'exact', attempt_index: 0, run_id: runs.exact![0]!.id });
    assert.equal(late.status, 409);
    assert.equal(late.body.code, 'evaluation_completed');
    assert.equal((await accountEvents(user.accountId)).filter((e) => e.data.id === ev.id).length, 1);
  });

  test('cancel: 200 cancelled, then every call that needs it running is 409 evaluation_cancelled; a failed one is evaluation_not_running', async () => {
    const [harnessId, machineId] = await Promise.all([harness(), machine()]);
    const body = { name: 'to cancel', harness_id: harnessId, machine_id: machineId, attempts_per_case: 1, cases: [{ id: 'a', input: 'x' }] };
    const ev = await evaluation(body);
    const run = await startRun(harnessId, machineId, 'x');
    const cancelled = await act(ev.id, 'cancel');
    assert.equal(cancelled.status, 200);
    assert.equal(cancelled.body.status, 'cancelled');
    assert.ok(cancelled.body.completed_at);
    assert.equal(cancelled.body.results, null);
    for (const answer of [await act(ev.id, 'cancel'), await act(ev.id, 'complete'), await record(ev.id, { case_id: 'a', attempt_index: 0, run_id: run.id })]) {
      assert.equal(answer.status, 409);
      assert.equal(answer.body.code, 'evaluation_cancelled');
    }
    assert.equal((await runEnded(run.id)).status, 'completed', 'the caller’s own runs are left alone');

    // A failed evaluation (the service could not start its runs): as the worker leaves it.
    const failed = await evaluation(body);
    await stack.table.db.send(
      new UpdateCommand({
        TableName: stack.tableName,
        Key: keys.evaluation(failed.id),
        UpdateExpression: 'SET #status = :failed',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':failed': 'failed' },
      }),
    );
    for (const answer of [
      await act(failed.id, 'cancel'),
      await act(failed.id, 'complete'),
      await record(failed.id, { case_id: 'a', attempt_index: 0, run_id: run.id }),
    ]) {
      assert.equal(answer.status, 409);
      assert.equal(answer.body.code, 'evaluation_not_running');
    }
  });

  test('an attempt recorded while its run is queued gets its outcome when the run ends', async () => {
    const [echo, script, machineId] = await Promise.all([harness(), harness('local/script'), machine()]);
    const holder = await startRun(script, machineId, { steps: [{ tool: 'ask_user', arguments: { question: 'hold the machine?' } }] });
    const ev = await evaluation({
      name: 'later',
      harness_id: echo,
      machine_id: machineId,
      attempts_per_case: 1,
      cases: [{ id: 'a', input: 'later on', expected: { type: 'regex', value: '^later\\s+on$' } }],
    });
    const queued = await startRun(echo, machineId, 'later on');
    assert.equal(queued.status, 'queued');
    const recorded = await record(ev.id, { case_id: 'a', attempt_index: 0, run_id: queued.id });
    assert.equal(recorded.status, 201);
    assert.deepEqual([recorded.body.run_status, recorded.body.passed, recorded.body.ended_at], [null, null, null]);
    assert.equal((await call('POST', `/v2/runs/${holder.id}/cancel`, user.token)).body.status, 'cancelled');
    await runEnded(queued.id);
    const settled = await evaluationWhen(ev.id, (e) => e.ended_attempts === 1);
    assert.deepEqual([settled.cases[0].attempts[0].run_status, settled.cases[0].attempts[0].passed], ['completed', true]);
    assert.equal(settled.status, 'running', 'an evaluation without run is completed by its caller');
  });
});

describe('run: true', () => {
  test('the service starts cases × attempts runs in order, grades them on local/echo and completes with the pass rates, once', async () => {
    const [harnessId, machineId] = await Promise.all([harness(), machine()]);
    const ev = await evaluation({
      name: 'graded',
      harness_id: harnessId,
      machine_id: machineId,
      attempts_per_case: 3,
      run: true,
      cases: [
        { id: 'exact-pass', input: 'hello there', expected: { type: 'exact', value: 'hello there' } },
        { id: 'contains-fail', input: 'hello there', expected: { type: 'contains', value: 'goodbye' } },
        {
          id: 'jsonata-pass',
          input: 'one two three',
          expected: { type: 'jsonata', value: '$count($split(output, " ")) = 3 and run.status = "completed" and input = output' },
        },
        { id: 'regex-fail', input: 'abc', expected: { type: 'regex', value: '^\\d+$' } },
        { id: 'unchecked', input: 'free' },
      ],
    });
    assert.equal(ev.status, 'running');
    assert.equal(ev.run, true);
    const done = await evaluationWhen(ev.id, (e) => e.status === 'completed', 60_000);
    assert.deepEqual(done.results, {
      per_case: [
        { case_id: 'exact-pass', attempts: 3, passed: 3, pass_rate: 1, run_statuses: { completed: 3 } },
        { case_id: 'contains-fail', attempts: 3, passed: 0, pass_rate: 0, run_statuses: { completed: 3 } },
        { case_id: 'jsonata-pass', attempts: 3, passed: 3, pass_rate: 1, run_statuses: { completed: 3 } },
        { case_id: 'regex-fail', attempts: 3, passed: 0, pass_rate: 0, run_statuses: { completed: 3 } },
        { case_id: 'unchecked', attempts: 3, passed: null, pass_rate: null, run_statuses: { completed: 3 } },
      ],
      pass_rate: 0.5,
    });
    assert.deepEqual([done.recorded_attempts, done.ended_attempts, done.attempt_count], [15, 15, 15]);
    const runs = await runsOf(harnessId);
    assert.equal(runs.length, 15, 'one run per slot');
    const slotRuns = done.cases.flatMap((c: Json) => c.attempts.map((a: Json) => a.run_id));
    assert.deepEqual(new Set(slotRuns), new Set(runs.map((r) => r.id)));
    const byStart = [...runs].sort((a, b) => (a.started_at < b.started_at ? -1 : 1)).map((r) => r.id);
    assert.deepEqual(byStart, slotRuns, 'the runs ran on the machine in slot order');
    assert.deepEqual(runs.find((r) => r.id === slotRuns[4])!.metadata, { evaluation_id: ev.id, case_id: 'contains-fail', attempt_index: 1 });

    // A redelivered start task and a duplicated run-ended notice change nothing.
    const { makeHandler: evaluationRuns } = await import('../../functions/workers/evaluation-runs.js');
    const { makeHandler: runEndedWorker } = await import('../../functions/workers/run-ended.js');
    const context = { getRemainingTimeInMillis: () => 300_000 };
    const delivery = (body: unknown) => ({ messageId: randomUUID(), body: JSON.stringify(body), attributes: { ApproximateReceiveCount: '2' } });
    assert.deepEqual(await evaluationRuns()({ Records: [delivery({ evaluation_id: ev.id, account_id: user.accountId })] } as never, context as never), {
      batchItemFailures: [],
    });
    const lastRun = runs.find((r) => r.id === slotRuns.at(-1))!;
    const notice = { run_id: lastRun.id, account_id: user.accountId, status: 'completed' };
    assert.deepEqual(await runEndedWorker()({ Records: [delivery(notice), delivery(notice)] } as never, context as never), { batchItemFailures: [] });
    // (The run-tasks queues may hold a delayed look at a waiting run of another test: only these two queues matter here.)
    await queuesDrained({ ...stack, queues: stack.queues.filter((q) => ['run-ended', 'evaluation-runs'].includes(q.definition.name)) });
    assert.equal((await runsOf(harnessId)).length, 15);
    assert.deepEqual((await get(`/v2/evaluations/${ev.id}`)).body, done);
    const events = (await accountEvents(user.accountId)).filter((e) => e.data.id === ev.id);
    assert.equal(events.length, 1, 'completed once, with one event');
    assert.equal(events[0]!.data.results.pass_rate, 0.5);

    const manual = await record(ev.id, { case_id: 'unchecked', attempt_index: 0, run_id: slotRuns[12] });
    assert.equal(manual.body.code, 'evaluation_completed');
  });

  test('cancel cancels the runs that have not ended; the caller cannot record into the service’s slots', async () => {
    const [harnessId, machineId] = await Promise.all([harness('local/script'), machine()]);
    const ask = { steps: [{ tool: 'ask_user', arguments: { question: 'waiting for a person' } }, { reply: 'done' }] };
    const ev = await evaluation({
      name: 'waits',
      harness_id: harnessId,
      machine_id: machineId,
      attempts_per_case: 2,
      run: true,
      cases: [
        { id: 'a', input: ask },
        { id: 'b', input: ask },
      ],
    });
    const waiting = await evaluationWhen(ev.id, (e) => e.recorded_attempts === 4);
    const runIds: string[] = waiting.cases.flatMap((c: Json) => c.attempts.map((a: Json) => a.run_id));
    await vi.waitFor(async () => assert.equal((await get(`/v2/runs/${runIds[0]}`)).body.status, 'waiting'), { timeout: 20_000, interval: 50 });
    assert.deepEqual(await Promise.all(runIds.slice(1).map(async (id) => (await get(`/v2/runs/${id}`)).body.status)), ['queued', 'queued', 'queued']);
    const own = await startRun(harnessId, machineId, 'mine');
    const intrude = await record(ev.id, { case_id: 'a', attempt_index: 1, run_id: own.id });
    assert.equal(intrude.status, 409);
    assert.equal(intrude.body.code, 'attempt_conflict');
    assert.equal((await record(ev.id, { case_id: 'a', attempt_index: 1, run_id: runIds[1] })).status, 200, 'its own run is a no-op');
    const early = await act(ev.id, 'complete');
    assert.equal(early.body.code, 'evaluation_incomplete', 'runs that have not ended are missing');
    assert.equal(early.body.errors.length, 2);

    const cancelled = await act(ev.id, 'cancel');
    assert.equal(cancelled.status, 200);
    assert.equal(cancelled.body.status, 'cancelled');
    for (const id of runIds) assert.equal((await runEnded(id)).status, 'cancelled');
    for (const id of runIds.slice(1)) assert.equal((await get(`/v2/runs/${id}`)).body.started_at, null, 'a queued run was cancelled before it started');
    const after = await evaluationWhen(ev.id, (e) => e.ended_attempts === 4);
    assert.equal(after.status, 'cancelled');
    assert.deepEqual(
      after.cases.flatMap((c: Json) => c.attempts.map((a: Json) => a.run_status)),
      ['cancelled', 'cancelled', 'cancelled', 'cancelled'],
    );
    await runEnded(own.id);
    assert.equal((await runsOf(harnessId)).length, 5, 'nothing more was started');
  });
});

describe('how deep a case’s input may nest', () => {
  const tooDeep = assertTooDeep;

  test('at the bound the service’s runs of the case end and the evaluation completes; one past is 422 naming the input, thousands deep 422 naming the cases', async () => {
    const [harnessId, machineId] = await Promise.all([harness(), machine()]);
    const base = { name: 'deep', harness_id: harnessId, machine_id: machineId, attempts_per_case: 1 };
    tooDeep(
      await post('/v2/evaluations', {
        ...base,
        cases: [
          { id: 'ok', input: 'x' },
          { id: 'deep', input: nested(JSON_MAX_DEPTH + 1) },
        ],
      }),
      '/cases/1/input',
    );
    const absurd = `{"name":"deep","harness_id":"${harnessId}","machine_id":"${machineId}","attempts_per_case":1,"cases":[{"id":"c","input":${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}}]}`;
    tooDeep(await call('POST', '/v2/evaluations', user.token, absurd, { 'Idempotency-Key': randomUUID() }), '/cases');

    const created = await evaluation({ ...base, run: true, cases: [{ id: 'deep', input: nested(JSON_MAX_DEPTH) }] });
    assert.deepEqual(created.cases[0].input, nested(JSON_MAX_DEPTH));
    const done = await evaluationWhen(created.id, (e) => e.status === 'completed');
    assert.deepEqual(done.results.per_case[0].run_statuses, { completed: 1 });
  });
});
