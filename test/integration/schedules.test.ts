import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Context, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, test, vi } from 'vitest';
import { adminCommands } from '#accounts/admin-commands.js';
import { fireDeps } from '#schedules/fire-deps.js';
import { firingRequestId, firingRunId } from '#schedules/firing-ids.js';
import { MAX_SCHEDULES_PER_ACCOUNT } from '#schedules/model.js';
import { schedulesRepo } from '#schedules/schedules-repository.js';
import { makeHandler as firingsWorker } from '../../functions/workers/schedule-firings.js';
import { badListQueries, type Json, jsonCaller, withoutTraceId } from '../helpers/api.js';
import { newMachine } from '../helpers/runs.js';
import { signedUpUser, startTestStack } from '../helpers/stack.js';
import { apiFor, createVersion, node, settledTree, transform } from '../helpers/workflows.js';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let user: Awaited<ReturnType<typeof signedUpUser>>;

beforeAll(async () => {
  // The local firing loop at a short period, so a due schedule fires within the test.
  stack = await startTestStack({ scheduleLoop: { periodMs: 200 } });
  user = await signedUpUser(stack);
});
afterAll(async () => {
  await stack.stop();
});

const call = jsonCaller(() => stack.url);
const post = (path: string, body: unknown, token = user.token) => call('POST', path, token, body);
const get = (path: string, token = user.token) => call('GET', path, token);
const api = (token: string) =>
  apiFor(
    () => stack.url,
    () => token,
  );

const plusOne = (token = user.token) => createVersion(api(token), [transform('a', '{ "n": n + 1 }')], []);

async function harness(token = user.token): Promise<string> {
  const files = [
    { path: 'harness.json', content: JSON.stringify({ model: 'local/echo', instructions: 'prompt.md' }) },
    { path: 'prompt.md', content: 'You are scheduled.' },
  ];
  const created = await call('POST', '/v2/harnesses', token, { name: `h ${randomUUID().slice(0, 6)}`, files }, { 'Idempotency-Key': randomUUID() });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.id;
}

async function newSchedule(body: Json, token = user.token): Promise<Json> {
  const created = await post('/v1/schedules', { name: `s ${randomUUID().slice(0, 6)}`, expression: 'rate(1 hour)', ...body }, token);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

const isValidation = (answer: { status: number; body: Json }, pointer: string, code?: string) => {
  assert.equal(answer.status, 422, JSON.stringify(answer.body));
  assert.equal(answer.body.code, 'validation_failed');
  const entry = answer.body.errors.find((e: Json) => e.name === pointer);
  assert.ok(entry, `${pointer} in ${JSON.stringify(answer.body.errors)}`);
  if (code) assert.equal(entry.code, code);
  return entry;
};

/** Delivers firing messages to the worker as SQS would, in one batch. */
async function deliver(...firings: Json[]) {
  const event = {
    Records: firings.map((f, i) => ({
      messageId: `m${i}-${randomUUID()}`,
      body: JSON.stringify(f),
      eventSourceARN: 'arn:aws:sqs:us-east-1:0:schedule-firings',
    })),
  } as unknown as SQSEvent;
  const answer = await firingsWorker(fireDeps(stack.table))(event, { getRemainingTimeInMillis: () => 60_000 } as Context);
  assert.deepEqual(answer.batchItemFailures, []);
}

describe('schedules', () => {
  test('create (201, next_fire_at), get, list newest first in pages, patch, delete; foreign ids are the same 404', async () => {
    const v = await plusOne();
    const created = await newSchedule({
      expression: 'cron(0 9 * * mon-fri)',
      timezone: 'Europe/Berlin',
      target: { workflow_version_id: v.id, entry_node_ids: v.entry_node_ids, payload: { n: 1 } },
    });
    assert.match(created.id, /^sch_/);
    assert.equal(created.expression, 'cron(0 9 * * MON-FRI)');
    assert.equal(created.enabled, true);
    assert.ok(Date.parse(created.next_fire_at) > Date.now());
    assert.match(new Date(created.next_fire_at).toLocaleString('en-GB', { timeZone: 'Europe/Berlin' }), /09:00:00/);
    assert.equal(created.last_fired_at, null);
    assert.equal(created.last_error, null);
    assert.deepEqual((await get(`/v1/schedules/${created.id}`)).body, created);

    const second = await newSchedule({ target: { workflow_version_id: v.id, entry_node_ids: v.entry_node_ids } });
    const page = await get('/v1/schedules?limit=1');
    assert.deepEqual(
      page.body.schedules.map((s: Json) => s.id),
      [second.id],
    );
    assert.equal(page.body.has_more, true);
    const next = await get(`/v1/schedules?limit=1&cursor=${encodeURIComponent(page.body.next_cursor)}`);
    assert.deepEqual(
      next.body.schedules.map((s: Json) => s.id),
      [created.id],
    );
    for (const [query, code] of badListQueries(page.body.next_cursor).slice(0, 4)) {
      const bad = await get(`/v1/schedules${query}`);
      assert.equal(bad.status, 400, query);
      assert.equal(bad.body.code, code, query);
    }

    const patched = await call('PATCH', `/v1/schedules/${created.id}`, user.token, { name: 'renamed', expression: 'rate(5 minutes)' });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.name, 'renamed');
    assert.equal(patched.body.expression, 'rate(5 minutes)');
    const due = Date.parse(patched.body.next_fire_at) - Date.now();
    assert.ok(due > 4 * 60_000 && due <= 5 * 60_000, `next_fire_at ${patched.body.next_fire_at}`);

    const stranger = await signedUpUser(stack);
    const foreign = await get(`/v1/schedules/${created.id}`, stranger.token);
    const unknown = await get('/v1/schedules/sch_000000000AAAAAAAAAAAAAAAA', stranger.token);
    assert.equal(foreign.status, 404);
    assert.deepEqual(withoutTraceId(foreign.body), withoutTraceId(unknown.body));
    assert.equal((await call('PATCH', `/v1/schedules/${created.id}`, stranger.token, { enabled: false })).status, 404);
    assert.equal((await call('DELETE', `/v1/schedules/${created.id}`, stranger.token)).status, 404);
    assert.equal((await post(`/v1/schedules/${created.id}/trigger`, undefined, stranger.token)).status, 404);

    assert.equal((await call('DELETE', `/v1/schedules/${created.id}`, user.token)).status, 204);
    assert.equal((await get(`/v1/schedules/${created.id}`)).status, 404);
    assert.equal((await call('DELETE', `/v1/schedules/${created.id}`, user.token)).status, 404);
  });

  test('422s name the field: expression, both day fields, timezone, target fields of either kind, references', async () => {
    const v = await plusOne();
    const target = { workflow_version_id: v.id, entry_node_ids: v.entry_node_ids };
    const cases: Array<[Json, string, string?]> = [
      [{ expression: 'cron(0 9 * *)', target }, '/expression', 'invalid_expression'],
      [{ expression: 'rate(30 seconds)', target }, '/expression', 'invalid_expression'],
      [{ expression: 'cron(0 9 1 * MON)', target }, '/expression', 'invalid_expression'],
      [{ timezone: 'Mars/Base', target }, '/timezone', 'invalid_timezone'],
      [{ target: { workflow_version_id: v.id } }, '/target/entry_node_ids', 'required'],
      [{ target: { harness_id: 'h_x', input: 'hi' } }, '/target/machine_id', 'required'],
      [{ target: { ...target, input: 'hi', harness_id: 'h_x', machine_id: 'mch_x' } }, '/target/workflow_version_id', 'unexpected_field'],
      [{ target: { workflow_version_id: randomUUID(), entry_node_ids: v.entry_node_ids } }, '/target/workflow_version_id'],
      [{ target: { harness_id: 'h_nope', machine_id: 'mch_nope', input: 'hi' } }, '/target/harness_id', 'invalid_reference'],
    ];
    for (const [body, pointer, code] of cases) isValidation(await post('/v1/schedules', { name: 'x', expression: 'rate(1 hour)', ...body }), pointer, code);
    const bothDays = await post('/v1/schedules', { name: 'x', expression: 'cron(0 9 1 * MON)', target });
    assert.match(isValidation(bothDays, '/expression').reason, /day-of-month and day-of-week/);
  });

  test('at most 50 schedules an account: 409 schedule_limit_reached, and a delete frees a place', async () => {
    const owner = await signedUpUser(stack);
    const v = await plusOne(owner.token);
    const target = { workflow_version_id: v.id, entry_node_ids: v.entry_node_ids };
    const made = await Promise.all(Array.from({ length: MAX_SCHEDULES_PER_ACCOUNT }, () => newSchedule({ target }, owner.token)));
    const refused = await post('/v1/schedules', { name: 'one more', expression: 'rate(1 hour)', target }, owner.token);
    assert.equal(refused.status, 409);
    assert.equal(refused.body.code, 'schedule_limit_reached');
    assert.equal(refused.body.limit, MAX_SCHEDULES_PER_ACCOUNT);
    assert.equal((await call('DELETE', `/v1/schedules/${made[0]!.id}`, owner.token)).status, 204);
    await newSchedule({ target }, owner.token);
  });

  test('trigger starts a request now with metadata schedule_id and scheduled_at, records last_fired_at, keeps next_fire_at', async () => {
    const v = await plusOne();
    const s = await newSchedule({ target: { workflow_version_id: v.id, entry_node_ids: v.entry_node_ids, payload: { n: 41 } } });
    const fired = await post(`/v1/schedules/${s.id}/trigger`, undefined);
    assert.equal(fired.status, 201, JSON.stringify(fired.body));
    const { scheduled_at, workflow_request_id } = fired.body.firing;
    assert.equal(workflow_request_id, firingRequestId(s.id, scheduled_at));
    assert.equal(fired.body.schedule.last_fired_at, scheduled_at);
    assert.equal(fired.body.schedule.next_fire_at, s.next_fire_at);
    const request = await get(`/v1/workflow-requests/${workflow_request_id}`);
    assert.equal(request.status, 200);
    assert.deepEqual(request.body.metadata, { schedule_id: s.id, scheduled_at });
  });

  test('a run target: trigger creates the run; a machine that was deleted disables the schedule with last_error target_not_found', async () => {
    const h = await harness();
    const m = await newMachine(call, user.token);
    const s = await newSchedule({ target: { harness_id: h, machine_id: m, input: 'hello' } });
    assert.equal(s.target.if_busy, 'enqueue');
    const fired = await post(`/v1/schedules/${s.id}/trigger`, undefined);
    assert.equal(fired.status, 201, JSON.stringify(fired.body));
    assert.equal(fired.body.firing.run_id, firingRunId(s.id, fired.body.firing.scheduled_at));
    const run = await get(`/v2/runs/${fired.body.firing.run_id}`);
    assert.equal(run.status, 200);
    assert.deepEqual(run.body.metadata, { schedule_id: s.id, scheduled_at: fired.body.firing.scheduled_at });

    const gone = await newMachine(call, user.token);
    const orphan = await newSchedule({ target: { harness_id: h, machine_id: gone, input: 'hello' } });
    assert.equal((await call('DELETE', `/v1/machines/${gone}`, user.token)).status, 204);
    await deliver({ schedule_id: orphan.id, scheduled_at: '2030-01-01T00:00:00Z' });
    const after = (await get(`/v1/schedules/${orphan.id}`)).body;
    assert.equal(after.enabled, false);
    assert.equal(after.next_fire_at, null);
    assert.equal(after.last_error.code, 'target_not_found');
    assert.equal(after.last_error.scheduled_at, '2030-01-01T00:00:00.000Z');
    assert.match(after.last_error.message, /machine_id.*disabled/);
  });

  test('a duplicate firing message for one scheduled_at (either precision) makes one request', async () => {
    const v = await plusOne();
    const s = await newSchedule({ target: { workflow_version_id: v.id, entry_node_ids: v.entry_node_ids } });
    await deliver({ schedule_id: s.id, scheduled_at: '2030-01-01T09:00:00Z' }, { schedule_id: s.id, scheduled_at: '2030-01-01T09:00:00.000Z' });
    await deliver({ schedule_id: s.id, scheduled_at: '2030-01-01T10:00:00+01:00' });
    const requests = await get(`/v1/workflow-requests?workflow_id=${v.workflow_id}`);
    assert.deepEqual(
      requests.body.workflow_requests.map((r: Json) => r.id),
      [firingRequestId(s.id, '2030-01-01T09:00:00.000Z')],
    );
    assert.equal((await get(`/v1/schedules/${s.id}`)).body.last_fired_at, '2030-01-01T09:00:00.000Z');
  });

  test('a firing the account refuses (its ceiling of work in progress) records last_error, is not retried, and trigger answers the refusal', async () => {
    const owner = await signedUpUser(stack);
    await adminCommands(stack.table)['account:set-limits']({ 'account-id': owner.accountId, concurrency: '1' });
    // An approval node waits for a person: the request holds the account's one slot.
    const waiting = await createVersion(api(owner.token), [node('ask', 'approval', { prompt: 'ok?' })], []);
    const holder = await newSchedule({ target: { workflow_version_id: waiting.id, entry_node_ids: waiting.entry_node_ids } }, owner.token);
    assert.equal((await post(`/v1/schedules/${holder.id}/trigger`, undefined, owner.token)).status, 201);

    const v = await plusOne(owner.token);
    const s = await newSchedule({ target: { workflow_version_id: v.id, entry_node_ids: v.entry_node_ids } }, owner.token);
    await deliver({ schedule_id: s.id, scheduled_at: '2021-02-01T00:00:00Z' });
    const after = (await get(`/v1/schedules/${s.id}`, owner.token)).body;
    assert.equal(after.enabled, true);
    assert.equal(after.last_fired_at, null);
    assert.equal(after.last_error.code, 'rate_limited');
    assert.equal(after.last_error.scheduled_at, '2021-02-01T00:00:00.000Z');

    const refused = await post(`/v1/schedules/${s.id}/trigger`, undefined, owner.token);
    assert.equal(refused.status, 429);
    assert.equal(refused.body.code, 'rate_limited');
    assert.ok(refused.headers.get('retry-after'));
    assert.notEqual((await get(`/v1/schedules/${s.id}`, owner.token)).body.last_error.scheduled_at, '2021-02-01T00:00:00.000Z');
  });

  test('a full usage window and a busy machine (if_busy: reject) are recorded as last_error with the problem’s code, and not retried', async () => {
    // Prepare: an account whose five-hour window its first firing's request fills.
    const owner = await signedUpUser(stack);
    await adminCommands(stack.table)['account:set-limits']({ 'account-id': owner.accountId, 'five-hour-usd': '0.000001' });
    const v = await plusOne(owner.token);
    const s = await newSchedule({ target: { workflow_version_id: v.id, entry_node_ids: v.entry_node_ids } }, owner.token);
    const first = await post(`/v1/schedules/${s.id}/trigger`, undefined, owner.token);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    await settledTree(api(owner.token), first.body.firing.workflow_request_id);
    // A machine kept busy by a slow run, and a schedule that rejects a busy machine.
    const h = await harness();
    const m = await newMachine(call, user.token);
    const slowHarness = await call(
      'POST',
      '/v2/harnesses',
      user.token,
      {
        name: `slow ${randomUUID().slice(0, 6)}`,
        files: [
          { path: 'harness.json', content: JSON.stringify({ model: 'local/script', instructions: 'p.md' }) },
          { path: 'p.md', content: 'slow' },
        ],
      },
      { 'Idempotency-Key': randomUUID() },
    );
    const busy = await call(
      'POST',
      '/v2/runs',
      user.token,
      { harness_id: slowHarness.body.id, machine_id: m, input: { steps: [{ reply: 'one two three four five six', delay_ms: 2000 }] } },
      { 'Idempotency-Key': randomUUID() },
    );
    assert.equal(busy.status, 201, JSON.stringify(busy.body));
    const rejecting = await newSchedule({ target: { harness_id: h, machine_id: m, input: 'x', if_busy: 'reject' } });

    // Act: one firing of each, as the queue delivers it (the worker answers no batch failure: nothing is retried).
    await deliver({ schedule_id: s.id, scheduled_at: '2031-01-01T00:00:00Z' }, { schedule_id: rejecting.id, scheduled_at: '2031-01-01T00:00:00Z' });

    // Assert
    const windowFull = (await get(`/v1/schedules/${s.id}`, owner.token)).body;
    assert.equal(windowFull.last_error.code, 'usage_window_exceeded');
    assert.equal(windowFull.last_error.scheduled_at, '2031-01-01T00:00:00.000Z');
    assert.equal(windowFull.enabled, true);
    const machineBusy = (await get(`/v1/schedules/${rejecting.id}`)).body;
    assert.equal(machineBusy.last_error.code, 'machine_busy');
    assert.equal(machineBusy.last_fired_at, null);
    assert.equal((await get(`/v2/runs/${firingRunId(rejecting.id, '2031-01-01T00:00:00.000Z')}`)).status, 404);
    await call('POST', `/v2/runs/${busy.body.id}/cancel`, user.token, undefined, { 'Idempotency-Key': randomUUID() });
  });

  test('the local loop fires a due schedule through the queue and moves next_fire_at on; PATCH enabled:false stops it', async () => {
    const v = await plusOne();
    const s = await newSchedule({ expression: 'rate(1 minute)', target: { workflow_version_id: v.id, entry_node_ids: v.entry_node_ids } });
    // Due now: what a minute's wait would do, written as the loop reads it.
    const repo = schedulesRepo(stack.table);
    const stored = (await repo.get(user.accountId, s.id))!;
    const dueAt = new Date(Date.now() - 1000).toISOString();
    assert.ok(await repo.save(stored, { ...stored, next_fire_at: dueAt }));
    const fired = await vi.waitFor(
      async () => {
        const now = (await get(`/v1/schedules/${s.id}`)).body;
        assert.equal(now.last_fired_at, dueAt);
        return now;
      },
      { timeout: 15_000, interval: 100 },
    );
    assert.ok(Date.parse(fired.next_fire_at) > Date.now());
    const request = await get(`/v1/workflow-requests/${firingRequestId(s.id, dueAt)}`);
    assert.deepEqual(request.body.metadata, { schedule_id: s.id, scheduled_at: dueAt });

    const off = await call('PATCH', `/v1/schedules/${s.id}`, user.token, { enabled: false });
    assert.equal(off.status, 200);
    assert.equal(off.body.next_fire_at, null);
    assert.equal(
      (await repo.due(new Date(Date.now() + 3_600_000), 100)).some((d) => d.id === s.id),
      false,
    );
  });
});
