import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test, vi } from 'vitest';
import { adminCommands } from '#accounts/admin-commands.js';
import { eventsAfter } from '#events/pages.js';
import { runEventLog } from '#runs/events.js';
import type { RunEventData } from '#runs/model.js';
import { type Json, jsonCaller } from '../helpers/api.js';
import { startMcpServer, type TestMcpServer } from '../helpers/mcp-server.js';
import { newMachine, runWhen as waitForRun } from '../helpers/runs.js';
import { signedUpUser, startTestStack } from '../helpers/stack.js';
import { Receiver, verified } from '../helpers/webhook-receiver.js';

/**
 * Run limits (decisions.md, "Run streaming, limits and forks") through the
 * local gateway: `limits` on POST /v2/runs and in harness.json, a run that
 * reaches one failing `budget_exceeded` with `failure.limit`, billed for
 * what it did, and told by its run.status event and its run.failed webhook;
 * time waiting for a person does not count.
 */

// The handlers and workers run in this process and read these on every call: the MCP server and the webhook receiver are on 127.0.0.1 over http:.
process.env.OUTBOUND_ALLOWED_HOSTS = '127.0.0.1';
process.env.OUTBOUND_ALLOW_INSECURE = 'true';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let user: Awaited<ReturnType<typeof signedUpUser>>;
let mcp: TestMcpServer;
const receiver = new Receiver();

beforeAll(async () => {
  [stack, mcp] = await Promise.all([startTestStack(), startMcpServer(), receiver.start()]);
  user = await signedUpUser(stack, { plan: 'team' });
});
afterAll(async () => {
  mcp.slow.release();
  await Promise.all([stack.stop(), mcp.stop(), receiver.stop()]);
});

type User = typeof user;
const call = jsonCaller(() => stack.url);
const post = (path: string, body: unknown, token = user.token) => call('POST', path, token, body, { 'Idempotency-Key': randomUUID() });
const get = (path: string, token = user.token) => call('GET', path, token);

async function harness(config: Record<string, unknown> = {}, token = user.token, instructions = 'You are a test agent.'): Promise<string> {
  const files = [
    { path: 'harness.json', content: JSON.stringify({ model: 'local/script', instructions: 'prompt.md', ...config }) },
    { path: 'prompt.md', content: instructions },
  ];
  const created = await post('/v2/harnesses', { name: `h ${randomUUID().slice(0, 6)}`, files }, token);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.id;
}

async function startRun(body: Record<string, unknown>, token = user.token): Promise<Json> {
  const created = await post('/v2/runs', body, token);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

const ended = (run: Json) => ['completed', 'failed', 'cancelled'].includes(run.status);
const runWhen = (id: string, until: (run: Json) => boolean, token = user.token) => waitForRun((path) => get(path, token), id, until);

async function events(runId: string): Promise<RunEventData[]> {
  const read = await eventsAfter<RunEventData>(runEventLog(stack.table, runId), 0, 1000, true);
  return read.events.map((event) => event.data);
}
const ofType = async (runId: string, type: RunEventData['type']) => (await events(runId)).filter((e) => e.type === type);

async function pendingInteraction(runId: string): Promise<Json> {
  return vi.waitFor(
    async () => {
      const page = (await get(`/v2/interactions?run_id=${runId}&status=pending`)).body;
      assert.ok(page.data?.[0], JSON.stringify(page));
      return page.data[0] as Json;
    },
    { timeout: 20_000, interval: 50 },
  );
}

const echo = (text: string) => ({ tool: 'srv__echo', arguments: { text } });
const withEcho = (config: Record<string, unknown> = {}) => harness({ mcp_servers: [{ name: 'srv', url: mcp.url('/json') }], ...config });

describe('limits on POST /v2/runs and in harness.json', () => {
  test('a value that is not a positive integer is 422 validation_failed naming /limits/<field>; an unknown field 400 unknown_field', async () => {
    const [harnessId, machineId] = await Promise.all([harness(), newMachine(call, user.token)]);
    const base = { harness_id: harnessId, machine_id: machineId, input: 'x' };
    for (const [limits, name] of [
      [{ max_tool_calls: 0 }, '/limits/max_tool_calls'],
      [{ max_duration_seconds: -5 }, '/limits/max_duration_seconds'],
      [{ max_cost_micro_usd: 1.5 }, '/limits/max_cost_micro_usd'],
      [{ max_cost_micro_usd: '100' }, '/limits/max_cost_micro_usd'],
      ['none', '/limits'],
    ] as const) {
      const refused = await post('/v2/runs', { ...base, limits });
      assert.equal(refused.status, 422, JSON.stringify(refused.body));
      assert.equal(refused.body.code, 'validation_failed');
      assert.deepEqual(
        refused.body.errors.map((e: Json) => [e.name, e.location]),
        [[name, 'body']],
      );
    }
    const unknown = await post('/v2/runs', { ...base, limits: { max_turns: 2 } });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.code, 'unknown_field');
    assert.equal(unknown.body.errors[0].name, '/limits/max_turns');
  });

  test('harness.json limits: an invalid one refuses the harness like its other faults; valid, they are shown with its config', async () => {
    const files = (limits: unknown) => [
      { path: 'harness.json', content: JSON.stringify({ model: 'local/echo', instructions: 'prompt.md', limits }) },
      { path: 'prompt.md', content: 'Hi.' },
    ];
    const refused = await post('/v2/harnesses', { name: 'bad limits', files: files({ max_tool_calls: 0, max_cost: 5 }) });
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.equal(refused.body.code, 'harness_files_invalid');
    const entry = refused.body.errors.find((e: Json) => e.name === 'harness.json');
    assert.match(entry.reason, /\/limits\/max_tool_calls must be a positive integer/);
    assert.match(entry.reason, /\/limits\/max_cost is not a field of harness\.json/);

    const created = await post('/v2/harnesses', { name: 'limited', files: files({ max_tool_calls: 4, max_cost_micro_usd: 900 }) });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const shown = (await get(`/v2/harnesses/${created.body.id}`)).body;
    assert.deepEqual(shown.config.limits, { max_cost_micro_usd: 900, max_tool_calls: 4 });
  });

  test('a run shows the limits it runs under: the harness’s defaults, its own values winning field by field; null when none', async () => {
    const [limited, plain, machineId] = await Promise.all([
      harness({ model: 'local/echo', limits: { max_tool_calls: 5, max_duration_seconds: 300 } }),
      harness({ model: 'local/echo' }),
      newMachine(call, user.token),
    ]);
    const defaults = await startRun({ harness_id: limited, machine_id: machineId, input: 'a' });
    assert.deepEqual(defaults.limits, { max_duration_seconds: 300, max_tool_calls: 5 });
    const overridden = await startRun({ harness_id: limited, machine_id: machineId, input: 'b', limits: { max_tool_calls: 1, max_cost_micro_usd: 1_000_000 } });
    assert.deepEqual(overridden.limits, { max_cost_micro_usd: 1_000_000, max_duration_seconds: 300, max_tool_calls: 1 });
    const none = await startRun({ harness_id: plain, machine_id: machineId, input: 'c' });
    assert.equal(none.limits, null);

    for (const run of [defaults, overridden, none]) {
      const done = await runWhen(run.id, ended);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.deepEqual(done.limits, run.limits, 'GET shows what the create answered');
    }
    const listed = (await get(`/v2/runs?harness_id=${limited}`)).body.data;
    assert.deepEqual(
      listed.map((r: Json) => [r.id, r.limits]),
      [
        [overridden.id, overridden.limits],
        [defaults.id, defaults.limits],
      ],
    );
  });
});

describe('a run that reaches a limit fails budget_exceeded', () => {
  /** An account whose plan window is full and whose extra usage pays: each run's whole cost is one debit naming it. */
  async function payingUser(): Promise<User> {
    const payer = await signedUpUser(stack, { plan: 'team', balanceUsd: 5 });
    const admin = adminCommands(stack.table);
    await admin['account:set-limits']({ 'account-id': payer.accountId, 'five-hour-usd': '0.000001' });
    await admin['account:extra-usage']({ 'account-id': payer.accountId, on: true });
    const [echoHarness, machineId] = await Promise.all([harness({ model: 'local/echo' }, payer.token), newMachine(call, payer.token)]);
    const filler = await startRun({ harness_id: echoHarness, machine_id: machineId, input: 'fills the window' }, payer.token);
    assert.equal((await runWhen(filler.id, ended, payer.token)).status, 'completed');
    return payer;
  }

  test('max_tool_calls 1 with three tool calls: one call is made, the run fails before the second, billed for what it did; its run.status event and run.failed webhook carry failure.limit', async () => {
    const payer = await payingUser();
    const hook = await post('/v1/webhook-endpoints', { url: `${receiver.url}/limits`, events: ['run.failed'] }, payer.token);
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
    const harnessId = await harness({ mcp_servers: [{ name: 'srv', url: mcp.url('/json') }] }, payer.token);
    const machineId = await newMachine(call, payer.token);
    const run = await startRun(
      { harness_id: harnessId, machine_id: machineId, input: { steps: [echo('one'), echo('two'), echo('three')] }, limits: { max_tool_calls: 1 } },
      payer.token,
    );

    const failed = await runWhen(run.id, ended, payer.token);

    assert.equal(failed.status, 'failed', JSON.stringify(failed));
    assert.deepEqual({ ...failed.failure, message: undefined }, { code: 'budget_exceeded', message: undefined, retryable: false, limit: 'max_tool_calls' });
    assert.match(failed.failure.message, /tool call/);
    assert.deepEqual(failed.limits, { max_tool_calls: 1 });
    const results = await ofType(run.id, 'tool_result');
    assert.deepEqual(
      results.map((e) => (e.data as Json).text),
      ['echo: one'],
      'the first call was made, the second never',
    );
    assert.equal((await ofType(run.id, 'tool_call')).length, 2, 'the second turn was taken: it asked for the call it was refused');
    assert.equal(failed.usage.output_tokens > 0 && failed.usage.cost_micro_usd > 0, true);
    const last = (await events(run.id)).at(-1)!;
    assert.deepEqual(last, { type: 'run.status', data: { status: 'failed', failure: failed.failure } });
    const page = (await get(`/v2/runs/${run.id}/events?limit=500`, payer.token)).body.data;
    assert.deepEqual(page.at(-1).data, { status: 'failed', failure: failed.failure }, 'the events listing shows it alike');
    assert.equal((await get(`/v1/machines/${machineId}`, payer.token)).body.status, 'idle');

    // Billed: its whole cost (extra usage, the window being full) is its one debit, written with its end.
    const debits = (await get('/v1/billing/transactions?types=debit', payer.token)).body.transactions.filter((t: Json) => t.metadata.run_id === run.id);
    assert.equal(debits.length, 1, JSON.stringify(debits));
    assert.equal(debits[0].amount, failed.usage.cost_micro_usd);
    assert.equal((await get('/v2/usage', payer.token)).body.extra.spent_micro_usd_this_cycle >= failed.usage.cost_micro_usd, true);

    // Its run.failed webhook: the run as GET shows it, failure.limit included.
    await vi.waitFor(() => assert.equal(receiver.of('limits').length, 1), { timeout: 20_000, interval: 100 });
    const payload = verified(hook.body.secret, receiver.of('limits')[0]!);
    assert.deepEqual(payload, { type: 'run.failed', timestamp: failed.completed_at, data: failed });
    assert.equal(payload.data.failure.limit, 'max_tool_calls');
  });

  test('max_cost_micro_usd reached by the first model turn: the run fails before the tool call it asked for, the turn recorded and billed', async () => {
    // About 60 words of instructions: the first turn's input alone costs 60 µ$ at local/script's price; machine time is 10 µ$ a started second.
    const instructions = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    const harnessId = await harness({ mcp_servers: [{ name: 'srv', url: mcp.url('/json') }] }, user.token, instructions);
    const run = await startRun({
      harness_id: harnessId,
      machine_id: await newMachine(call, user.token),
      input: { steps: [echo('never'), { reply: 'never' }] },
      limits: { max_cost_micro_usd: 40 },
    });

    const failed = await runWhen(run.id, ended);

    assert.equal(failed.status, 'failed', JSON.stringify(failed));
    assert.deepEqual([failed.failure.code, failed.failure.limit, failed.failure.retryable], ['budget_exceeded', 'max_cost_micro_usd', false]);
    assert.ok(failed.usage.input_tokens >= 60, JSON.stringify(failed.usage));
    assert.ok(failed.usage.cost_micro_usd >= 40, 'it overshoots by the one model turn');
    assert.equal((await ofType(run.id, 'tool_call')).length, 1);
    assert.equal((await ofType(run.id, 'tool_result')).length, 0, 'the tool was never called');
    const usageEvents = await ofType(run.id, 'usage');
    assert.equal(usageEvents.length, 1, 'one model turn');
  });

  test('max_duration_seconds: a slow tool call takes the run past it, and it fails before its next model turn', async () => {
    mcp.slow.rearm();
    const harnessId = await harness({
      mcp_servers: [
        { name: 'slow', url: mcp.url('/slow') },
        { name: 'srv', url: mcp.url('/json') },
      ],
    });
    const run = await startRun({
      harness_id: harnessId,
      machine_id: await newMachine(call, user.token),
      input: { steps: [{ tool: 'slow__slow', arguments: { text: 'x' } }, echo('never')] },
      limits: { max_duration_seconds: 1 },
    });
    await vi.waitFor(() => assert.equal(mcp.slow.calls, 1), { timeout: 20_000, interval: 20 });
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    mcp.slow.release();

    const failed = await runWhen(run.id, ended);

    assert.equal(failed.status, 'failed', JSON.stringify(failed));
    assert.deepEqual([failed.failure.code, failed.failure.limit], ['budget_exceeded', 'max_duration_seconds']);
    assert.deepEqual(
      (await ofType(run.id, 'tool_result')).map((e) => (e.data as Json).text),
      ['done: x'],
      'the call under way finished and was recorded',
    );
    assert.equal((await ofType(run.id, 'usage')).length, 1, 'no model turn after it');
    assert.ok(failed.usage.cost_micro_usd >= 20, 'its machine time (2 started seconds at least) is billed');
  });

  test('max_duration_seconds: time waiting for a person does not count; approved after longer than the limit, the run still completes', async () => {
    const harnessId = await withEcho({ tools: [{ name: 'srv__echo', require_approval: true }] });
    const run = await startRun({
      harness_id: harnessId,
      machine_id: await newMachine(call, user.token),
      input: { steps: [echo('approved'), { reply: 'done' }] },
      limits: { max_duration_seconds: 2 },
    });
    const approval = await pendingInteraction(run.id);
    await runWhen(run.id, (r) => r.status === 'waiting');
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    assert.equal((await get(`/v2/runs/${run.id}`)).body.status, 'waiting', 'no limit is reached while it waits');
    const answered = await post(`/v2/interactions/${approval.id}/respond`, { type: 'approval', approved: true });
    assert.equal(answered.status, 200, JSON.stringify(answered.body));

    const done = await runWhen(run.id, ended);

    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.output, 'done');
    assert.deepEqual(done.limits, { max_duration_seconds: 2 });
    assert.equal((await ofType(run.id, 'tool_result')).length, 1);
  });
});
