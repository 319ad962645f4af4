import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, test, vi } from 'vitest';
import { eventsAfter } from '#events/pages.js';
import { JSON_MAX_DEPTH } from '#platform/config/limits.js';
import { keys } from '#platform/table/keys.js';
import { runEventLog } from '#runs/events.js';
import type { RunEventData } from '#runs/model.js';
import { type Json, jsonCaller, withoutTraceId } from '../helpers/api.js';
import { assertTooDeep, nested } from '../helpers/deep-json.js';
import { startMcpServer, type TestMcpServer } from '../helpers/mcp-server.js';
import { newMachine, runWhen as waitForRun } from '../helpers/runs.js';
import { signedUpUser, startTestStack } from '../helpers/stack.js';

// The handlers and workers run in this process and read the outbound settings on every call.
process.env.OUTBOUND_ALLOWED_HOSTS = '127.0.0.1';
process.env.OUTBOUND_ALLOW_INSECURE = 'true';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let user: Awaited<ReturnType<typeof signedUpUser>>;
let mcp: TestMcpServer;

beforeAll(async () => {
  [stack, mcp] = await Promise.all([startTestStack(), startMcpServer()]);
  user = await signedUpUser(stack, { plan: 'team' });
});
afterAll(async () => {
  mcp.slow.release();
  await Promise.all([stack.stop(), mcp.stop()]);
});

const call = jsonCaller(() => stack.url);
const post = (path: string, body: unknown, token = user.token) => call('POST', path, token, body, { 'Idempotency-Key': randomUUID() });
const get = (path: string, token = user.token) => call('GET', path, token);

async function harness(config: Record<string, unknown> = {}, instructions = 'You are a test agent.'): Promise<string> {
  const files = [
    { path: 'harness.json', content: JSON.stringify({ model: 'local/script', instructions: 'prompt.md', ...config }) },
    { path: 'prompt.md', content: instructions },
  ];
  const created = await post('/v2/harnesses', { name: `h ${randomUUID().slice(0, 6)}`, files });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.id;
}

const machine = (token = user.token) => newMachine(call, token);

async function startRun(body: Record<string, unknown>): Promise<Json> {
  const created = await post('/v2/runs', body);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

/** The run once `until` holds for it. */
const runWhen = (id: string, until: (run: Json) => boolean) => waitForRun(get, id, until);
const ended = (run: Json) => ['completed', 'failed', 'cancelled'].includes(run.status);

async function events(runId: string): Promise<RunEventData[]> {
  const read = await eventsAfter<RunEventData>(runEventLog(stack.table, runId), 0, 1000, true);
  for (const [index, event] of read.events.entries()) assert.equal(event.seq, index + 1, 'seqs are 1, 2, 3… with no gaps');
  return read.events.map((event) => event.data);
}
const statuses = async (runId: string) => (await events(runId)).filter((e) => e.type === 'run.status').map((e) => (e.data as { status: string }).status);

/** The interaction the run waits for, from the interactions API. */
async function pendingInteraction(runId: string): Promise<Json> {
  let found: Json | undefined;
  await vi.waitFor(
    async () => {
      const page = await get(`/v2/interactions?run_id=${runId}&status=pending`);
      found = page.body.data?.[0];
      assert.ok(
        found,
        `no pending interaction of ${runId}: ${JSON.stringify(page.body)} ${JSON.stringify((await get(`/v2/interactions?run_id=${runId}`)).body)} ${JSON.stringify((await get(`/v2/runs/${runId}`)).body)}`,
      );
    },
    { timeout: 20_000, interval: 50 },
  );
  return found!;
}

describe('runs on local/echo', () => {
  test('a run completes with the model’s answer, its usage and a run.status event for each status it passed through', async () => {
    const [harnessId, machineId] = await Promise.all([harness({ model: 'local/echo' }), machine()]);
    const run = await startRun({ harness_id: harnessId, machine_id: machineId, input: 'hello there world' });
    assert.match(run.id, /^run_/);
    assert.equal(run.status, 'running');
    const done = await runWhen(run.id, ended);
    assert.equal(done.status, 'completed');
    assert.equal(done.output, 'hello there world');
    assert.equal(done.failure, null);
    assert.equal(done.usage.output_tokens, 3);
    assert.ok(done.usage.input_tokens >= 3 + 5, 'the instructions are the system prompt and count as input');
    assert.ok(done.usage.cost_micro_usd > 0);
    assert.deepEqual(await statuses(run.id), ['queued', 'running', 'completed']);
    const types = (await events(run.id)).map((e) => e.type);
    // An answer produced within 250 ms writes its one delta in the turn's own change, just before its message.
    assert.deepEqual(types, ['run.status', 'run.status', 'message', 'message.delta', 'message', 'usage', 'run.status']);
    const machineNow = (await get(`/v1/machines/${machineId}`)).body;
    assert.equal(machineNow.status, 'idle');
  });

  test('bad input answers its exact status and code', async () => {
    const [harnessId, machineId] = await Promise.all([harness({ model: 'local/echo' }), machine()]);
    const missing = await post('/v2/runs', { harness_id: harnessId, input: 'x' });
    assert.equal(missing.status, 422);
    assert.equal(missing.body.code, 'validation_failed');
    assert.equal(missing.body.errors[0].name, '/machine_id');

    const other = await signedUpUser(stack);
    const [foreignHarness, foreignMachine] = await Promise.all([
      (async () => {
        const created = await post(
          '/v2/harnesses',
          { name: 'x', files: [{ path: 'harness.json', content: '{"model":"local/echo","instructions":"harness.json"}' }] },
          other.token,
        );
        return created.body.id as string;
      })(),
      machine(other.token),
    ]);
    const unknownHarness = await post('/v2/runs', { harness_id: 'h_000000000AAAAAAAAAAAAAAAA', machine_id: machineId, input: 'x' });
    const foreignHarnessAnswer = await post('/v2/runs', { harness_id: foreignHarness, machine_id: machineId, input: 'x' });
    assert.equal(unknownHarness.status, 422);
    assert.deepEqual(withoutTraceId(unknownHarness.body), withoutTraceId(foreignHarnessAnswer.body));
    assert.equal(unknownHarness.body.errors[0].name, '/harness_id');
    const unknownMachine = await post('/v2/runs', { harness_id: harnessId, machine_id: 'mch_000000000AAAAAAAAAAAAAAAA', input: 'x' });
    const foreignMachineAnswer = await post('/v2/runs', { harness_id: harnessId, machine_id: foreignMachine, input: 'x' });
    assert.equal(unknownMachine.status, 422);
    assert.deepEqual(withoutTraceId(unknownMachine.body), withoutTraceId(foreignMachineAnswer.body));
    assert.equal(unknownMachine.body.errors[0].name, '/machine_id');

    const empty = await harness({ model: 'local/echo' }, '   \n');
    const notRunnable = await post('/v2/runs', { harness_id: empty, machine_id: machineId, input: 'x' });
    assert.equal(notRunnable.status, 422);
    assert.equal(notRunnable.body.code, 'harness_not_runnable');
    const unconfigured = await harness({ model: 'nosuch/model' });
    assert.equal((await post('/v2/runs', { harness_id: unconfigured, machine_id: machineId, input: 'x' })).body.code, 'harness_not_runnable');

    const noKey = await call('POST', '/v2/runs', user.token, { harness_id: harnessId, machine_id: machineId, input: 'x' });
    assert.equal(noKey.status, 400);
    assert.equal(noKey.body.code, 'idempotency_key_required');

    const ownRun = await startRun({ harness_id: harnessId, machine_id: machineId, input: 'mine' });
    const answers = await Promise.all(
      [`/v2/runs/run_000000000AAAAAAAAAAAAAAAA`, '/v2/runs/not-a-run', `/v2/runs/${ownRun.id}`].map((path, i) =>
        i === 2 ? get(path, other.token) : get(path),
      ),
    );
    for (const answer of answers) assert.equal(answer.status, 404);
    assert.deepEqual(withoutTraceId(answers[0]!.body), withoutTraceId(answers[1]!.body));
    assert.deepEqual(withoutTraceId(answers[0]!.body), withoutTraceId(answers[2]!.body));
    const foreignCancel = await call('POST', `/v2/runs/${ownRun.id}/cancel`, other.token);
    assert.equal(foreignCancel.status, 404);
  });

  test('lists page newest first with status and harness filters; a cursor under other filters is refused', async () => {
    const [harnessId, otherHarness, machineId] = await Promise.all([harness({ model: 'local/echo' }), harness({ model: 'local/echo' }), machine()]);
    const ids: string[] = [];
    for (const input of ['a', 'b', 'c']) ids.push((await startRun({ harness_id: harnessId, machine_id: machineId, input })).id);
    await startRun({ harness_id: otherHarness, machine_id: machineId, input: 'd' });
    for (const id of ids) await runWhen(id, ended);
    const first = await get(`/v2/runs?harness_id=${harnessId}&limit=2`);
    assert.equal(first.status, 200);
    assert.deepEqual(
      first.body.data.map((r: Json) => r.id),
      [ids[2], ids[1]],
    );
    assert.equal(first.body.page.has_more, true);
    const second = await get(`/v2/runs?harness_id=${harnessId}&limit=2&cursor=${encodeURIComponent(first.body.page.next_cursor)}`);
    assert.deepEqual(
      second.body.data.map((r: Json) => r.id),
      [ids[0]],
    );
    assert.equal(second.body.page.has_more, false);
    const completed = await get(`/v2/runs?harness_id=${harnessId}&status=completed`);
    assert.equal(completed.body.data.length, 3);
    const mismatch = await get(`/v2/runs?harness_id=${otherHarness}&limit=2&cursor=${encodeURIComponent(first.body.page.next_cursor)}`);
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.body.code, 'cursor_filter_mismatch');
    assert.equal((await get('/v2/runs?cursor=nonsense')).body.code, 'cursor_invalid');
    assert.equal((await get('/v2/runs?limit=101')).status, 400);
  });
});

describe('one run at a time per machine, in order', () => {
  test('a run waiting for a person holds its machine; the next waits queued and starts when it ends', async () => {
    const [harnessId, machineId] = await Promise.all([harness(), machine()]);
    const asking = await startRun({
      harness_id: harnessId,
      machine_id: machineId,
      input: { steps: [{ tool: 'ask_user', arguments: { question: 'Which colour?' } }, { reply: 'noted' }] },
    });
    const interaction = await pendingInteraction(asking.id);
    assert.equal(interaction.type, 'answer');
    assert.equal(interaction.prompt, 'Which colour?');
    assert.equal(interaction.run_id, asking.id);
    assert.equal((await runWhen(asking.id, (r) => r.status === 'waiting')).status, 'waiting');
    const next = await startRun({ harness_id: harnessId, machine_id: machineId, input: 'second' });
    assert.equal(next.status, 'queued');
    const busy = (await get(`/v1/machines/${machineId}`)).body;
    assert.deepEqual([busy.status, busy.current_run_id, busy.queued_runs], ['busy', asking.id, 1]);

    const answered = await post(`/v2/interactions/${interaction.id}/respond`, { type: 'answer', text: 'blue' });
    assert.equal(answered.status, 200, JSON.stringify(answered.body));
    const again = await post(`/v2/interactions/${interaction.id}/respond`, { type: 'answer', text: 'red' });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'interaction_not_pending');

    const first = await runWhen(asking.id, ended);
    assert.equal(first.status, 'completed');
    assert.equal(first.output, 'noted');
    const second = await runWhen(next.id, ended);
    assert.equal(second.status, 'completed');
    assert.ok(second.started_at >= first.completed_at, 'the second started after the first ended');
    assert.deepEqual(await statuses(asking.id), ['queued', 'running', 'waiting', 'running', 'completed']);
    const result = (await events(asking.id)).find((e) => e.type === 'tool_result');
    assert.deepEqual(result?.data, { call_id: 'call_1', name: 'ask_user', text: 'blue', is_error: false });
  });

  test('cancel: a queued run leaves the queue at once; a waiting run ends, its interaction is cancelled and the machine moves on', async () => {
    const [harnessId, machineId] = await Promise.all([harness(), machine()]);
    const holder = await startRun({ harness_id: harnessId, machine_id: machineId, input: { steps: [{ tool: 'ask_user', arguments: { question: 'q?' } }] } });
    const interaction = await pendingInteraction(holder.id);
    const queued = await startRun({ harness_id: harnessId, machine_id: machineId, input: 'queued one' });
    const last = await startRun({ harness_id: harnessId, machine_id: machineId, input: 'last one' });
    const cancelledQueued = await call('POST', `/v2/runs/${queued.id}/cancel`, user.token);
    assert.equal(cancelledQueued.status, 200);
    assert.equal(cancelledQueued.body.status, 'cancelled');
    assert.equal((await get(`/v1/machines/${machineId}`)).body.queued_runs, 1);
    const again = await call('POST', `/v2/runs/${queued.id}/cancel`, user.token);
    assert.deepEqual(again.body, cancelledQueued.body, 'a terminal run comes back unchanged');

    const cancelledHolder = await call('POST', `/v2/runs/${holder.id}/cancel`, user.token);
    assert.equal(cancelledHolder.body.status, 'cancelled');
    assert.equal((await get(`/v2/interactions/${interaction.id}`)).body.status, 'cancelled');
    const lastDone = await runWhen(last.id, ended);
    assert.equal(lastDone.status, 'completed');
    assert.equal((await runWhen(queued.id, ended)).started_at, null, 'the cancelled queued run never started');
    assert.deepEqual(await statuses(holder.id), ['queued', 'running', 'waiting', 'cancelled']);
    const late = await post(`/v2/interactions/${interaction.id}/respond`, { type: 'answer', text: 'too late' });
    assert.equal(late.body.code, 'interaction_not_pending');
  });
});

describe('tools', () => {
  test('an approval-gated MCP tool runs once approved; denied, the model is told and the loop goes on', async () => {
    const harnessId = await harness({ mcp_servers: [{ name: 'srv', url: mcp.url('/json') }], tools: [{ name: 'srv__echo', require_approval: true }] });
    const machineId = await machine();
    const script = { steps: [{ tool: 'srv__echo', arguments: { text: 'hi' } }] };
    const approved = await startRun({ harness_id: harnessId, machine_id: machineId, input: script });
    const approval = await pendingInteraction(approved.id);
    assert.equal(approval.type, 'approval');
    assert.match(approval.prompt, /srv__echo/);
    const mismatch = await post(`/v2/interactions/${approval.id}/respond`, { type: 'answer', text: 'yes' });
    assert.equal(mismatch.status, 422);
    assert.equal(mismatch.body.code, 'interaction_type_mismatch');
    await post(`/v2/interactions/${approval.id}/respond`, { type: 'approval', approved: true });
    const done = await runWhen(approved.id, ended);
    assert.equal(done.status, 'completed');
    assert.equal(done.output, 'echo: hi', 'after a last tool call local/script answers its result');

    const denied = await startRun({ harness_id: harnessId, machine_id: machineId, input: script });
    await post(`/v2/interactions/${(await pendingInteraction(denied.id)).id}/respond`, { type: 'approval', approved: false });
    const deniedDone = await runWhen(denied.id, ended);
    assert.equal(deniedDone.status, 'completed');
    const result = (await events(denied.id)).find((e) => e.type === 'tool_result')!.data as Json;
    assert.equal(result.denied, true);
    assert.equal(result.is_error, true);
  });

  test('a tool result with isError is an ordinary result; an unreachable MCP server fails the run with upstream_unavailable', async () => {
    const machineId = await machine();
    const failing = await harness({ mcp_servers: [{ name: 'srv', url: mcp.url('/json') }] });
    const run = await startRun({ harness_id: failing, machine_id: machineId, input: { steps: [{ tool: 'srv__fail', arguments: {} }, { reply: 'went on' }] } });
    const done = await runWhen(run.id, ended);
    assert.equal(done.status, 'completed');
    assert.equal(done.output, 'went on');

    const broken = await harness({ mcp_servers: [{ name: 'down', url: mcp.url('/broken') }] });
    const failed = await runWhen((await startRun({ harness_id: broken, machine_id: machineId, input: 'hi' })).id, ended);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.failure.code, 'upstream_unavailable');
    assert.match(failed.failure.message, /down/);
    assert.equal((await get(`/v1/machines/${machineId}`)).body.status, 'idle', 'a failed run releases its machine');
  });

  test('max_turns: a model that keeps calling tools fails with max_turns_exceeded', async () => {
    const harnessId = await harness({ max_turns: 2, mcp_servers: [{ name: 'srv', url: mcp.url('/json') }] });
    const call = { tool: 'srv__echo', arguments: { text: 'again' } };
    const run = await startRun({ harness_id: harnessId, machine_id: await machine(), input: { steps: [call, call, call] } });
    const done = await runWhen(run.id, ended);
    assert.equal(done.failure?.code, 'max_turns_exceeded');
    assert.equal(done.failure?.retryable, false);
  });
});

describe('chats', () => {
  test('a chat binds to the machine of its first run; a later run needs no machine_id and sees the earlier turns', async () => {
    const [harnessId, machineId] = await Promise.all([harness({ model: 'local/echo' }), machine()]);
    const chat = (await call('POST', '/v1/chats', user.token, {})).body;
    const unbound = await post('/v2/runs', { harness_id: harnessId, chat_id: chat.id, input: 'x' });
    assert.equal(unbound.status, 422);
    assert.equal(unbound.body.errors[0].name, '/machine_id');
    const first = await runWhen((await startRun({ harness_id: harnessId, machine_id: machineId, chat_id: chat.id, input: 'one two three' })).id, ended);
    assert.equal((await get(`/v1/chats/${chat.id}`)).body.machine_id, machineId);
    const second = await runWhen((await startRun({ harness_id: harnessId, chat_id: chat.id, input: 'four' })).id, ended);
    assert.equal(second.machine_id, machineId);
    assert.equal(second.output, 'four');
    assert.equal(second.usage.input_tokens - first.usage.input_tokens, 1 + 3, 'the second run was sent the first run’s answer and its own input');
  });

  test('if_busy: reject answers 409 chat_busy; interrupt cancels the active run and starts next', async () => {
    const [harnessId, machineId] = await Promise.all([harness(), machine()]);
    const chat = (await call('POST', '/v1/chats', user.token, {})).body;
    const active = await startRun({
      harness_id: harnessId,
      machine_id: machineId,
      chat_id: chat.id,
      input: { steps: [{ tool: 'ask_user', arguments: { question: '?' } }] },
    });
    await pendingInteraction(active.id);
    const other = await startRun({ harness_id: harnessId, machine_id: machineId, input: 'not on the chat' });
    const rejected = await post('/v2/runs', { harness_id: harnessId, chat_id: chat.id, input: 'x', if_busy: 'reject' });
    assert.equal(rejected.status, 409);
    assert.equal(rejected.body.code, 'chat_busy');
    const interrupting = await startRun({ harness_id: harnessId, chat_id: chat.id, input: 'now', if_busy: 'interrupt' });
    assert.equal((await runWhen(active.id, ended)).status, 'cancelled');
    const done = await runWhen(interrupting.id, ended);
    const otherDone = await runWhen(other.id, ended);
    assert.ok(done.started_at <= otherDone.started_at, 'the interrupting run started before the run queued ahead of it');
  });
});

describe('durability', () => {
  test('cancel of a running run: it ends at once, its in-flight MCP call is aborted, and the next run on its machine starts', async () => {
    mcp.slow.rearm();
    const [harnessId, machineId] = await Promise.all([harness({ mcp_servers: [{ name: 'slow', url: mcp.url('/slow') }] }), machine()]);
    const run = await startRun({ harness_id: harnessId, machine_id: machineId, input: { steps: [{ tool: 'slow__slow', arguments: { text: 'x' } }] } });
    const next = await startRun({ harness_id: harnessId, machine_id: machineId, input: 'after the cancelled one' });
    assert.equal(next.status, 'queued');
    await vi.waitFor(() => assert.equal(mcp.slow.calls, 1), { timeout: 20_000, interval: 20 });

    const cancelled = await call('POST', `/v2/runs/${run.id}/cancel`, user.token);

    assert.equal(cancelled.status, 200);
    assert.equal(cancelled.body.status, 'cancelled');
    await vi.waitFor(() => assert.equal(mcp.slow.aborted, 1, 'the worker closed its call to the MCP server'), { timeout: 20_000, interval: 20 });
    assert.equal((await runWhen(next.id, ended)).status, 'completed');
    const all = await events(run.id);
    assert.equal(all.filter((e) => e.type === 'tool_result').length, 0, 'the aborted call left no result');
    assert.deepEqual(all.at(-1), { type: 'run.status', data: { status: 'cancelled' } });
    assert.equal((await get(`/v2/runs/${run.id}`)).body.status, 'cancelled');
  });

  test('a worker that stops holding the run mid-call is taken over: no recorded step is repeated, and it finishes once', async () => {
    mcp.slow.rearm();
    const harnessId = await harness({ mcp_servers: [{ name: 'slow', url: mcp.url('/slow') }] });
    const run = await startRun({ harness_id: harnessId, machine_id: await machine(), input: { steps: [{ tool: 'slow__slow', arguments: { text: 'x' } }] } });
    await vi.waitFor(() => assert.ok(mcp.slow.calls >= 1), { timeout: 20_000, interval: 20 });
    // As if the worker died mid-call: another owner holds the lease for 2 more seconds; the in-flight call notices it lost the run and stops.
    await stack.table.db.send(
      new UpdateCommand({
        TableName: stack.tableName,
        Key: keys.run(run.id),
        UpdateExpression: 'SET lease_owner = :dead, lease_until = :until',
        ExpressionAttributeValues: { ':dead': 'dead-worker', ':until': Date.now() + 2_000 },
      }),
    );
    const before = mcp.slow.calls;
    // SQS redelivers the dead worker's message after its visibility timeout, which may come before its lease runs out:
    // the redelivery waits for the lease (a delayed copy), and a duplicate first delivery changes nothing.
    const body = JSON.stringify({ run_id: run.id, machine_size: 'small' });
    const delivery = (receiveCount: number) => ({ messageId: randomUUID(), body, attributes: { ApproximateReceiveCount: String(receiveCount) } });
    const { makeHandler } = await import('../../functions/workers/run-tasks.js');
    const context = { getRemainingTimeInMillis: () => 900_000 };
    const answer = await makeHandler()({ Records: [delivery(2), delivery(1)] } as never, context as never);
    assert.deepEqual(answer, { batchItemFailures: [] });
    assert.equal(mcp.slow.calls, before, 'nobody takes a live lease');
    await vi.waitFor(() => assert.ok(mcp.slow.calls > before), { timeout: 20_000, interval: 20 });
    assert.equal(mcp.slow.calls, before + 1, 'one worker took the run over');
    mcp.slow.release();
    const done = await runWhen(run.id, ended);
    assert.equal(done.status, 'completed');
    assert.equal(done.output, 'done: x');
    const all = await events(run.id);
    assert.equal(all.filter((e) => e.type === 'tool_call').length, 1, 'the recorded model turn was not repeated');
    assert.equal(all.filter((e) => e.type === 'tool_result').length, 1);
    assert.equal(all.filter((e) => e.type === 'run.status' && (e.data as Json).status === 'completed').length, 1);
    const { wakeRun } = await import('#runs/wake.js');
    await wakeRun({ id: run.id, machine_size: 'small' });
    await new Promise((resolve) => setTimeout(resolve, 300)); // a message about an ended run: nothing may change
    assert.equal((await events(run.id)).length, all.length);
  });
});

describe('a run task that failed on every delivery', () => {
  test('its dead letter fails the run with internal_error, cancels its interaction and frees its machine', async () => {
    const [harnessId, machineId] = await Promise.all([harness(), machine()]);
    const run = await startRun({ harness_id: harnessId, machine_id: machineId, input: { steps: [{ tool: 'ask_user', arguments: { question: '?' } }] } });
    await runWhen(run.id, (r) => r.status === 'waiting');
    const queue = stack.queues.find((q) => q.definition.name === 'run-tasks-small');
    assert.ok(queue, 'the small machines’ run queue');
    const sqs = new SQSClient({ endpoint: stack.sqsEndpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });

    // As SQS moves a message after its last failed delivery; twice, as a redelivery would.
    for (let i = 0; i < 2; i++) {
      await sqs.send(new SendMessageCommand({ QueueUrl: queue.dlqUrl, MessageBody: JSON.stringify({ run_id: run.id, machine_size: 'small' }) }));
    }

    const failed = await runWhen(run.id, (r) => r.status === 'failed');
    assert.equal(failed.failure.code, 'internal_error');
    assert.equal((await get(`/v2/interactions?run_id=${run.id}`)).body.data[0].status, 'cancelled');
    assert.equal((await get(`/v1/machines/${machineId}`)).body.status, 'idle');
    await new Promise((resolve) => setTimeout(resolve, 500)); // the duplicate is handled by now: nothing more may change
    const all = await events(run.id);
    assert.equal(all.filter((e) => e.type === 'run.status' && (e.data as Json).status === 'failed').length, 1);
  });
});

describe('how deep a run’s JSON may nest', () => {
  const tooDeep = assertTooDeep;

  test('31 levels (past what the end can record) is refused naming the field; at the bound the run ends, recorded, and its machine runs the next', async () => {
    const [harnessId, machineId] = await Promise.all([harness({ model: 'local/echo' }), machine()]);
    const base = { harness_id: harnessId, machine_id: machineId };
    tooDeep(await post('/v2/runs', { ...base, input: nested(31) }), '/input');
    tooDeep(await post('/v2/runs', { ...base, input: nested(JSON_MAX_DEPTH + 1) }), '/input');
    tooDeep(await post('/v2/runs', { ...base, input: 'x', metadata: nested(JSON_MAX_DEPTH + 1) }), '/metadata');
    const absurd = `{"harness_id":"${harnessId}","machine_id":"${machineId}","input":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`;
    tooDeep(await call('POST', '/v2/runs', user.token, absurd, { 'Idempotency-Key': randomUUID() }), '/input');

    const deepest = await startRun({ ...base, input: nested(JSON_MAX_DEPTH), metadata: nested(JSON_MAX_DEPTH) });
    const next = await startRun({ ...base, input: 'next' });
    const done = await runWhen(deepest.id, ended);
    assert.equal(done.status, 'completed', JSON.stringify(done.failure));
    assert.deepEqual(done.metadata, nested(JSON_MAX_DEPTH));
    // Its end wrote the account's run.completed event with the whole run in it.
    const { Items } = await stack.table.db.send(
      new QueryCommand({
        TableName: stack.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.accountEventPartition(user.accountId) },
        ConsistentRead: true,
      }),
    );
    const recorded = (Items ?? []).find((item) => item.data?.id === deepest.id);
    assert.equal(recorded?.type, 'run.completed');
    assert.deepEqual(recorded?.data.input, nested(JSON_MAX_DEPTH));
    assert.equal((await runWhen(next.id, ended)).status, 'completed', 'the machine was freed for the next run');
    assert.equal((await get(`/v1/machines/${machineId}`)).body.status, 'idle');
  });

  test('a run stored with input 31 levels deep (before the bound) still ends when DynamoDB refuses its end: failed, internal_error, its machine on to the next', async () => {
    const [harnessId, machineId] = await Promise.all([harness(), machine()]);
    const waiting = await startRun({ harness_id: harnessId, machine_id: machineId, input: { steps: [{ tool: 'ask_user', arguments: { question: 'q?' } }] } });
    await pendingInteraction(waiting.id);
    await stack.table.db.send(
      new UpdateCommand({
        TableName: stack.tableName,
        Key: keys.run(waiting.id),
        UpdateExpression: 'SET #input = :input',
        ExpressionAttributeNames: { '#input': 'input' },
        ExpressionAttributeValues: { ':input': nested(31) },
      }),
    );
    const next = await startRun({ harness_id: harnessId, machine_id: machineId, input: 'next' });

    const cancelled = await call('POST', `/v2/runs/${waiting.id}/cancel`, user.token);
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal(cancelled.body.status, 'failed');
    assert.equal(cancelled.body.failure.code, 'internal_error');
    assert.deepEqual(cancelled.body.input, nested(31), 'the run keeps its input');
    assert.equal((await runWhen(next.id, ended)).status, 'completed', 'its machine ran the next run');
    assert.deepEqual(await statuses(waiting.id), ['queued', 'running', 'waiting', 'failed']);
  });
});
