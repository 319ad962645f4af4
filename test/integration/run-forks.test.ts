import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test, vi } from 'vitest';
import { adminCommands } from '#accounts/admin-commands.js';
import { type Json, jsonCaller, withoutTraceId } from '../helpers/api.js';
import { startMcpServer, type TestMcpServer } from '../helpers/mcp-server.js';
import { newMachine, runWhen as waitForRun } from '../helpers/runs.js';
import { signedUpUser, startTestStack } from '../helpers/stack.js';

/**
 * POST /v2/runs/{id}/fork through the local gateway (decisions.md, "Run
 * streaming, limits and forks"): a local/script run whose second MCP call
 * fails is forked after its first tool result once the server is fixed.
 */

// The handlers and workers run in this process and read the outbound settings on every call.
process.env.OUTBOUND_ALLOWED_HOSTS = '127.0.0.1';
process.env.OUTBOUND_ALLOW_INSECURE = 'true';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let user: Awaited<ReturnType<typeof signedUpUser>>;
let mcp: TestMcpServer;

beforeAll(async () => {
  [stack, mcp] = await Promise.all([startTestStack(), startMcpServer()]);
  user = await signedUpUser(stack, { plan: 'team', balanceUsd: 10 });
  // Every run's cost past the first microdollar is extra usage, debited from the wallet when the run ends: one transaction per run, naming it.
  await adminCommands(stack.table)['account:set-limits']({ 'account-id': user.accountId, 'five-hour-usd': '0.000001' });
  await adminCommands(stack.table)['account:extra-usage']({ 'account-id': user.accountId, on: true });
});
afterAll(async () => {
  await Promise.all([stack.stop(), mcp.stop()]);
});

const call = jsonCaller(() => stack.url);
const post = (path: string, body: unknown, token = user.token, key: string = randomUUID()) => call('POST', path, token, body, { 'Idempotency-Key': key });
const get = (path: string, token = user.token) => call('GET', path, token);
const fork = (runId: string, body: unknown, token = user.token, key?: string) => post(`/v2/runs/${runId}/fork`, body, token, key);
const runWhen = (id: string, until: (run: Json) => boolean) => waitForRun(get, id, until);
const ended = (run: Json) => ['completed', 'failed', 'cancelled'].includes(run.status);

async function harness(token = user.token): Promise<string> {
  const files = [
    {
      path: 'harness.json',
      content: JSON.stringify({ model: 'local/script', instructions: 'prompt.md', mcp_servers: [{ name: 'flaky', url: mcp.url('/flaky') }] }),
    },
    { path: 'prompt.md', content: 'You record things.' },
  ];
  const created = await post('/v2/harnesses', { name: `h ${randomUUID().slice(0, 6)}`, files }, token);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.id;
}

async function startRun(body: Record<string, unknown>): Promise<Json> {
  const created = await post('/v2/runs', body);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

async function events(runId: string): Promise<Json[]> {
  const page = await get(`/v2/runs/${runId}/events?limit=500`);
  assert.equal(page.status, 200, JSON.stringify(page.body));
  return page.body.data;
}

/** Three calls of the flaky server's `record` tool, then the answer `done`. */
const threeCalls = (tag: string) => ({
  steps: [
    { tool: 'flaky__record', arguments: { text: `${tag}-one` } },
    { tool: 'flaky__record', arguments: { text: `${tag}-two` } },
    { tool: 'flaky__record', arguments: { text: `${tag}-three` } },
    { reply: 'done' },
  ],
});

/** A run of `threeCalls(tag)` whose second call the server fails (HTTP 500): it ends failed, upstream_unavailable, after one tool result. */
async function failedRun(harnessId: string, machineId: string, tag: string): Promise<Json> {
  mcp.flaky.failing.add(`${tag}-two`);
  const run = await runWhen((await startRun({ harness_id: harnessId, machine_id: machineId, input: threeCalls(tag) })).id, ended);
  assert.equal(run.status, 'failed', JSON.stringify(run));
  assert.equal(run.failure.code, 'upstream_unavailable');
  mcp.flaky.failing.delete(`${tag}-two`); // fixed
  return run;
}

const callsOf = (tag: string) => mcp.flaky.calls.filter((text) => text.startsWith(`${tag}-`));
const seqOf = (list: Json[], type: string) => list.find((e) => e.type === type)!.seq as number;

describe('POST /v2/runs/{id}/fork', () => {
  test('forked after the first tool result of a run whose second MCP call failed: the server sees only the 2nd and 3rd calls, the fork completes and pays only for its live part', async () => {
    const [harnessId, machineId] = await Promise.all([harness(), newMachine(call, user.token)]);
    const source = await failedRun(harnessId, machineId, 'a');
    assert.deepEqual(callsOf('a'), ['a-one', 'a-two']);
    const sourceEvents = await events(source.id);
    const firstResult = seqOf(sourceEvents, 'tool_result');

    const key = randomUUID();
    const created = await fork(source.id, { from_seq: firstResult }, user.token, key);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const forked = created.body;
    assert.match(forked.id, /^run_/);
    assert.notEqual(forked.id, source.id);
    assert.deepEqual(forked.forked_from, { run_id: source.id, seq: firstResult });
    assert.deepEqual([forked.harness_id, forked.machine_id, forked.chat_id, forked.input], [harnessId, machineId, null, source.input]);
    assert.ok(['running', 'queued'].includes(forked.status));
    assert.deepEqual(forked.usage, { input_tokens: 0, output_tokens: 0, cost_micro_usd: 0 }, 'nothing reused is billed again');

    const replayed = await fork(source.id, { from_seq: firstResult }, user.token, key);
    assert.equal(replayed.status, 201);
    assert.equal(replayed.headers.get('idempotency-replayed'), 'true');
    assert.equal(replayed.body.id, forked.id, 'the same key answers the same fork');

    const done = await runWhen(forked.id, ended);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.output, 'done');
    assert.deepEqual(callsOf('a'), ['a-one', 'a-two', 'a-two', 'a-three'], 'the fork made exactly the 2nd and 3rd calls');
    assert.equal((await get(`/v2/runs/${source.id}`)).body.forked_from, null);

    // Its log: the reused conversation, marked with the source events it copies, then its own statuses and live events.
    const forkEvents = await events(forked.id);
    assert.deepEqual(
      forkEvents.map((e) => e.seq),
      forkEvents.map((_, i) => i + 1),
    );
    const copied = sourceEvents.filter((e) => e.seq <= firstResult && ['message', 'tool_call', 'tool_result'].includes(e.type));
    assert.deepEqual(
      copied.map((e) => e.type),
      ['message', 'tool_call', 'tool_result'],
    );
    assert.deepEqual(
      forkEvents.slice(0, copied.length).map((e) => ({ type: e.type, data: e.data })),
      copied.map((e) => ({ type: e.type, data: { ...e.data, reused_from: { run_id: source.id, seq: e.seq } } })),
    );
    const own = forkEvents.slice(copied.length);
    assert.ok(
      own.every((e) => e.data.reused_from === undefined),
      'only the copies are marked',
    );
    assert.deepEqual(
      own.filter((e) => e.type === 'run.status').map((e) => e.data.status),
      ['queued', 'running', 'completed'],
    );
    assert.deepEqual(
      own.filter((e) => e.type === 'tool_call').map((e) => e.data.arguments.text),
      ['a-two', 'a-three'],
    );
    assert.ok(!own.some((e) => e.type === 'message' && e.data.role === 'user'), 'the user message is not said again');

    // Billing: its tokens are a whole run's less the reused first turn's; its one debit is its own cost.
    const whole = await runWhen((await startRun({ harness_id: harnessId, machine_id: machineId, input: threeCalls('a') })).id, ended);
    assert.equal(whole.status, 'completed');
    const firstTurn = sourceEvents.find((e) => e.type === 'usage')!.data;
    assert.equal(done.usage.input_tokens, whole.usage.input_tokens - firstTurn.input_tokens);
    assert.equal(done.usage.output_tokens, whole.usage.output_tokens - firstTurn.output_tokens);
    let debits: Json[] = [];
    await vi.waitFor(
      async () => {
        debits = (await get('/v1/billing/transactions?limit=100')).body.transactions.filter((t: Json) => t.type === 'debit');
        assert.ok(debits.some((t) => t.metadata.run_id === whole.id));
      },
      { timeout: 10_000, interval: 100 },
    );
    const forkDebits = debits.filter((t) => t.metadata.run_id === forked.id);
    assert.equal(forkDebits.length, 1, JSON.stringify(debits));
    assert.equal(forkDebits[0]!.amount, done.usage.cost_micro_usd);
    assert.ok(done.usage.cost_micro_usd > 0);

    // A fork of the fork, after its last tool result: only the final answer is played again, no tool is called.
    const lastResult = forkEvents.filter((e) => e.type === 'tool_result').at(-1)!.seq;
    const again = await fork(forked.id, { from_seq: lastResult });
    assert.equal(again.status, 201, JSON.stringify(again.body));
    const againDone = await runWhen(again.body.id, ended);
    assert.equal(againDone.output, 'done');
    assert.equal(callsOf('a').length, 4 + 3, 'the whole run’s three calls, none of the second fork');
    const againEvents = await events(again.body.id);
    assert.deepEqual(
      againEvents.filter((e) => e.data.reused_from).map((e) => [e.type, e.data.reused_from.run_id]),
      [
        ['message', forked.id],
        ['tool_call', forked.id],
        ['tool_result', forked.id],
        ['tool_call', forked.id],
        ['tool_result', forked.id],
        ['tool_call', forked.id],
        ['tool_result', forked.id],
      ],
    );
  });

  test('refusals: 409 run_not_ended, 422 naming /from_seq or /machine_id, and one 404 for another account’s run and an unknown id', async () => {
    const [harnessId, machineId] = await Promise.all([harness(), newMachine(call, user.token)]);
    const waiting = await startRun({ harness_id: harnessId, machine_id: machineId, input: { steps: [{ tool: 'ask_user', arguments: { question: '?' } }] } });
    await runWhen(waiting.id, (run) => run.status === 'waiting');
    const busy = await fork(waiting.id, { from_seq: 1 });
    assert.equal(busy.status, 409, JSON.stringify(busy.body));
    assert.equal(busy.body.code, 'run_not_ended');
    await call('POST', `/v2/runs/${waiting.id}/cancel`, user.token);

    const source = await failedRun(harnessId, machineId, 'b');
    const last = (await events(source.id)).at(-1)!.seq as number;
    for (const from_seq of [0, last + 1, 1.5, '3', -1]) {
      const refused = await fork(source.id, { from_seq });
      assert.equal(refused.status, 422, `${from_seq}: ${JSON.stringify(refused.body)}`);
      assert.equal(refused.body.code, 'validation_failed');
      assert.deepEqual(
        refused.body.errors.map((e: Json) => [e.name, e.location]),
        [['/from_seq', 'body']],
        String(from_seq),
      );
    }
    const missing = await fork(source.id, {});
    assert.equal(missing.status, 422);
    assert.equal(missing.body.errors[0].name, '/from_seq');
    const noMachine = await fork(source.id, { from_seq: 1, machine_id: 'mch_nope' });
    assert.equal(noMachine.status, 422);
    assert.equal(noMachine.body.errors[0].name, '/machine_id');
    const noKey = await call('POST', `/v2/runs/${source.id}/fork`, user.token, { from_seq: 1 });
    assert.equal(noKey.status, 400);
    assert.equal(noKey.body.code, 'idempotency_key_required');

    const other = await signedUpUser(stack);
    const foreign = await fork(source.id, { from_seq: 1 }, other.token);
    const unknown = await fork('run_0000000000000000000000000', { from_seq: 1 });
    const malformed = await fork('nope', { from_seq: 1 });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.code, 'not_found');
    assert.deepEqual(withoutTraceId(foreign.body), withoutTraceId(unknown.body));
    assert.deepEqual(withoutTraceId(foreign.body), withoutTraceId(malformed.body));
    assert.deepEqual(withoutTraceId(foreign.body), withoutTraceId((await get(`/v2/runs/${source.id}`, other.token)).body), 'as GET /v2/runs/{id} answers');
    assert.equal(callsOf('b').length, 2, 'no refused fork made a call');
  });

  test('on a chat: the fork is sent the history its source was sent (not the source’s own turn); another machine than the chat’s is 422', async () => {
    const [harnessId, machineId] = await Promise.all([harness(), newMachine(call, user.token)]);
    const chat = (await call('POST', '/v1/chats', user.token, {})).body;
    await runWhen((await startRun({ harness_id: harnessId, machine_id: machineId, chat_id: chat.id, input: 'one two three' })).id, ended);
    const source = await runWhen((await startRun({ harness_id: harnessId, chat_id: chat.id, input: 'four' })).id, ended);
    assert.equal(source.status, 'completed');
    const forked = await fork(source.id, { from_seq: 1 });
    assert.equal(forked.status, 201, JSON.stringify(forked.body));
    assert.equal(forked.body.chat_id, chat.id);
    const done = await runWhen(forked.body.id, ended);
    assert.equal(done.output, 'four');
    assert.equal(done.usage.input_tokens, source.usage.input_tokens, 'the same history and input as its source: the first run only');
    assert.equal(done.usage.output_tokens, source.usage.output_tokens);

    const elsewhere = await fork(source.id, { from_seq: 1, machine_id: await newMachine(call, user.token) });
    assert.equal(elsewhere.status, 422, 'a chat stays on its machine');
    assert.equal(elsewhere.body.errors[0].name, '/machine_id');
  });

  test('an evaluation records a fork of its failed attempt’s run in another slot, like any run of its harness', async () => {
    const [harnessId, machineId] = await Promise.all([harness(), newMachine(call, user.token)]);
    const evaluation = await post('/v2/evaluations', {
      name: 'forks',
      harness_id: harnessId,
      machine_id: machineId,
      attempts_per_case: 2,
      cases: [{ id: 'record', input: threeCalls('c'), expected: { type: 'exact', value: 'done' } }],
    });
    assert.equal(evaluation.status, 201, JSON.stringify(evaluation.body));
    const evaluationId = evaluation.body.id;
    const failed = await failedRun(harnessId, machineId, 'c');
    const first = await post(`/v2/evaluations/${evaluationId}/attempts`, { case_id: 'record', attempt_index: 0, run_id: failed.id });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.body.run_status, 'failed');
    assert.equal(first.body.passed, false);

    const forked = await fork(failed.id, { from_seq: seqOf(await events(failed.id), 'tool_result') });
    assert.equal(forked.status, 201, JSON.stringify(forked.body));
    const second = await post(`/v2/evaluations/${evaluationId}/attempts`, { case_id: 'record', attempt_index: 1, run_id: forked.body.id });
    assert.equal(second.status, 201, JSON.stringify(second.body));
    assert.equal(second.body.run_id, forked.body.id);
    await runWhen(forked.body.id, ended);
    let attempts: Json[] = [];
    await vi.waitFor(
      async () => {
        attempts = (await get(`/v2/evaluations/${evaluationId}`)).body.cases[0].attempts;
        assert.ok(
          attempts.every((a) => a.run_status !== null),
          JSON.stringify(attempts),
        );
      },
      { timeout: 20_000, interval: 100 },
    );
    assert.deepEqual(
      attempts.map((a) => [a.attempt_index, a.run_status, a.passed]),
      [
        [0, 'failed', false],
        [1, 'completed', true],
      ],
    );
    const completed = await call('POST', `/v2/evaluations/${evaluationId}/complete`, user.token);
    assert.equal(completed.status, 200, JSON.stringify(completed.body));
    assert.equal(completed.body.results.pass_rate, 0.5);
    assert.deepEqual(callsOf('c'), ['c-one', 'c-two', 'c-two', 'c-three']);
  });
});
