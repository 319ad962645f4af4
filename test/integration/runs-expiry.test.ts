import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { eventsAfter } from '#events/pages.js';
import { runEventLog } from '#runs/events.js';
import type { RunEventData } from '#runs/model.js';
import { type Json, jsonCaller } from '../helpers/api.js';
import { runWhen as waitForRun } from '../helpers/runs.js';
import { signedUpUser, startTestStack } from '../helpers/stack.js';

// Read when the run worker and the respond handler first load (lazily, on first use): a run's interaction lasts 2 s here.
process.env.RUN_INTERACTION_TIMEOUT_SECONDS = '2';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let user: Awaited<ReturnType<typeof signedUpUser>>;

beforeAll(async () => {
  stack = await startTestStack();
  user = await signedUpUser(stack, { plan: 'team' });
});
afterAll(() => stack.stop());

const call = jsonCaller(() => stack.url);
const post = (path: string, body: unknown) => call('POST', path, user.token, body, { 'Idempotency-Key': randomUUID() });
const get = (path: string) => call('GET', path, user.token);

async function askingRun(): Promise<{ run: Json; machineId: string }> {
  const files = [
    { path: 'harness.json', content: JSON.stringify({ model: 'local/script', instructions: 'prompt.md' }) },
    { path: 'prompt.md', content: 'You ask.' },
  ];
  const harness = await post('/v2/harnesses', { name: 'asks', files });
  const machine = await call('POST', '/v1/machines', user.token, { name: `m ${randomUUID().slice(0, 6)}` });
  const run = await post('/v2/runs', {
    harness_id: harness.body.id,
    machine_id: machine.body.id,
    input: { steps: [{ tool: 'ask_user', arguments: { question: 'Anyone there?' } }] },
  });
  assert.equal(run.status, 201, JSON.stringify(run.body));
  return { run: run.body, machineId: machine.body.id };
}

const runWhen = (id: string, until: (run: Json) => boolean) => waitForRun(get, id, until);

async function interactionOf(runId: string): Promise<Json> {
  const listed = await get(`/v2/interactions?run_id=${runId}`);
  assert.equal(listed.status, 200);
  assert.equal(listed.body.data.length, 1);
  return listed.body.data[0];
}

const events = async (runId: string) => (await eventsAfter<RunEventData>(runEventLog(stack.table, runId), 0, 1000, true)).events.map((e) => e.data);

describe('a run whose interaction nobody answers', () => {
  test('fails with timeout when its interaction expires; the interaction is expired, a late answer is refused, the machine is free', async () => {
    const { run, machineId } = await askingRun();
    await runWhen(run.id, (r) => r.status === 'waiting');
    const pending = await interactionOf(run.id);
    assert.equal(pending.status, 'pending');
    assert.ok(pending.expires_at, 'a run interaction says when it expires');

    const failed = await runWhen(run.id, (r) => r.status === 'failed');

    assert.deepEqual(failed.failure, { code: 'timeout', message: failed.failure.message, retryable: false });
    assert.equal((await interactionOf(run.id)).status, 'expired');
    const late = await post(`/v2/interactions/${pending.id}/respond`, { type: 'answer', text: 'too late' });
    assert.equal(late.status, 409);
    assert.equal(late.body.code, 'interaction_not_pending');
    assert.equal((await call('GET', `/v1/machines/${machineId}`, user.token)).body.status, 'idle');
    const tail = (await events(run.id)).slice(-2);
    assert.deepEqual(tail, [
      { type: 'interaction', data: { interaction_id: pending.id, type: 'answer', status: 'expired' } },
      { type: 'run.status', data: { status: 'failed', failure: failed.failure } },
    ]);
  });
});
