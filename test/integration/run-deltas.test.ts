import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, test, vi } from 'vitest';
import { eventsAfter, type LoggedEvent } from '#events/pages.js';
import { keys } from '#platform/table/keys.js';
import { loggedText } from '#runs/deltas.js';
import { runEventId, runEventLog } from '#runs/events.js';
import type { RunEventData } from '#runs/model.js';
import { type Json, jsonCaller } from '../helpers/api.js';
import { startOpenAIStreamServer, textChunk, usageChunk } from '../helpers/openai-stream-server.js';
import { newMachine, runWhen as waitForRun } from '../helpers/runs.js';
import { readSseBlocks } from '../helpers/sse-blocks.js';
import { bearer, signedUpUser, startTestStack } from '../helpers/stack.js';

/**
 * Token deltas through the local gateway (decisions.md, Run streaming:
 * `message.delta`): a slow answer arrives over SSE piece by piece before its
 * `message`, resuming with Last-Event-ID loses nothing, the OpenAI-compatible
 * provider streams end to end, a cancel stops the answer, and a worker that
 * dies mid-answer is replayed without a half-answer that disagrees.
 */

let stack: Awaited<ReturnType<typeof startTestStack>>;
let user: Awaited<ReturnType<typeof signedUpUser>>;

beforeAll(async () => {
  stack = await startTestStack();
  user = await signedUpUser(stack, { plan: 'team' });
});
afterAll(async () => {
  await stack.stop();
});

const call = jsonCaller(() => stack.url);
const post = (path: string, body: unknown) => call('POST', path, user.token, body, { 'Idempotency-Key': randomUUID() });
const get = (path: string) => call('GET', path, user.token);
const ended = (run: Json) => ['completed', 'failed', 'cancelled'].includes(run.status);
const runWhen = (id: string, until: (run: Json) => boolean) => waitForRun(get, id, until);

async function harness(model = 'local/script'): Promise<string> {
  const files = [
    { path: 'harness.json', content: JSON.stringify({ model, instructions: 'prompt.md' }) },
    { path: 'prompt.md', content: 'You are a test agent.' },
  ];
  const created = await post('/v2/harnesses', { name: `h ${randomUUID().slice(0, 6)}`, files });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.id;
}

async function startRun(input: unknown, model?: string): Promise<string> {
  const [harnessId, machineId] = await Promise.all([harness(model), newMachine(call, user.token)]);
  const created = await post('/v2/runs', { harness_id: harnessId, machine_id: machineId, input });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.id;
}

/** A reply of `words` words, each after `delayMs`. */
const slowReply = (words: number, delayMs: number) => {
  const text = Array.from({ length: words }, (_, i) => `word${i + 1}`).join(' ');
  return { text, input: { steps: [{ reply: text, delay_ms: delayMs }] } };
};

/** The run's events as stored, checked gapless. */
async function events(runId: string): Promise<LoggedEvent<RunEventData>[]> {
  const read = await eventsAfter<RunEventData>(runEventLog(stack.table, runId), 0, 1000, true);
  for (const [index, event] of read.events.entries()) assert.equal(event.seq, index + 1, 'seqs are 1, 2, 3… with no gaps');
  return read.events;
}

interface Received {
  id: string;
  type: string;
  seq: number;
  data: Json;
  at: number;
}

/** An SSE client over fetch: every event with the time it arrived, and whether the server ended the stream. */
async function listen(runId: string, lastEventId?: string) {
  const abort = new AbortController();
  const headers = { ...bearer(user.token), Accept: 'text/event-stream', ...(lastEventId ? { 'Last-Event-ID': lastEventId } : {}) };
  const response = await fetch(`${stack.url}/v2/runs/${runId}/events`, { headers, signal: abort.signal });
  assert.equal(response.status, 200);
  const received: Received[] = [];
  let closed = false;
  const pump = readSseBlocks(response.body, (block) => {
    const data = /^data: (.*)$/m.exec(block)?.[1];
    if (!data) return;
    const event = JSON.parse(data) as Json;
    assert.equal(/^event: (.*)$/m.exec(block)?.[1], event.type);
    received.push({ id: event.id, type: event.type, seq: event.seq, data: event.data, at: Date.now() });
  })
    .catch((error) => {
      if (!abort.signal.aborted) throw error;
    })
    .finally(() => {
      closed = true;
    });
  return {
    received,
    waitFor: (check: () => boolean, what: string) => vi.waitFor(() => assert.ok(check(), what), { timeout: 20_000, interval: 20 }),
    waitClosed: async () => {
      await vi.waitFor(() => assert.ok(closed, 'the server closed the stream'), { timeout: 30_000, interval: 50 });
      await pump;
    },
    close: () => abort.abort(),
  };
}

const deltasOf = <E extends { type: string }>(list: readonly E[]): E[] => list.filter((e) => e.type === 'message.delta');
const asData = (list: ReadonlyArray<{ type: string; data: Json }>) => list.map((e) => ({ type: e.type, data: e.data }) as RunEventData);

describe('message.delta', () => {
  test('a slow answer arrives over SSE in deltas before its message, at most about 4 a second, and they add up to its text', async () => {
    const { text, input } = slowReply(12, 200);
    const runId = await startRun(input);
    const client = await listen(runId);
    await client.waitClosed();
    const got = client.received;
    assert.deepEqual(
      got.map((e) => e.seq),
      got.map((_, i) => i + 1),
    );
    const message = got.find((e) => e.type === 'message' && e.data.role === 'assistant')!;
    assert.equal(message.data.text, text);
    const deltas = deltasOf(got);
    assert.ok(deltas.length >= 4, `${deltas.length} deltas for a 2.2 s answer`);
    assert.ok(deltas.every((d) => d.seq < message.seq && d.data.restart === undefined));
    assert.equal(loggedText(asData(got.filter((e) => e.seq < message.seq))), text);
    assert.ok(message.at - deltas[0]!.at >= 1_000, `the first delta arrived ${message.at - deltas[0]!.at} ms before the message`);
    const stored = await events(runId);
    // At most about 4 a second: each delta's write began at least 250 ms after the one before (its created_at).
    const writtenAt = stored.filter((e) => e.data.type === 'message.delta').map((e) => Date.parse(e.created_at));
    for (let i = 1; i < writtenAt.length - 1; i++)
      assert.ok(writtenAt[i]! - writtenAt[i - 1]! >= 240, `delta ${i} ${writtenAt[i]! - writtenAt[i - 1]!} ms after the one before`);
    assert.deepEqual(
      stored.map((e) => e.data.type),
      ['run.status', 'run.status', 'message', ...deltas.map(() => 'message.delta'), 'message', 'usage', 'run.status'],
      'the user’s message first, then the deltas, then the answer',
    );
    assert.equal((await get(`/v2/runs/${runId}`)).body.output, text);
  });

  test('the JSON page carries the deltas like any event; resuming the stream with Last-Event-ID mid-answer loses nothing', async () => {
    const { text, input } = slowReply(14, 200);
    const runId = await startRun(input);
    const first = await listen(runId);
    await first.waitFor(() => deltasOf(first.received).length >= 2, 'two deltas');
    first.close();
    const last = first.received.at(-1)!;
    const second = await listen(runId, last.id);
    await second.waitClosed();
    const all = [...first.received, ...second.received];
    assert.ok(second.received[0]!.seq === last.seq + 1, 'the stream resumed right after the last event received');
    assert.deepEqual(
      all.map((e) => e.seq),
      all.map((_, i) => i + 1),
      'nothing lost, nothing twice',
    );
    assert.equal(loggedText(asData(all)), text);
    assert.ok(deltasOf(second.received).length >= 1, 'deltas came after the reconnect too');
    const page = await get(`/v2/runs/${runId}/events?limit=500`);
    assert.deepEqual(
      page.body.data.map((e: Json) => [e.seq, e.type, e.id]),
      all.map((e) => [e.seq, e.type, runEventId(runId, e.seq)]),
    );
  });

  test('an OpenAI-compatible endpoint that streams: its pieces become deltas, then the message', async () => {
    const server = await startOpenAIStreamServer();
    process.env.OPENAI_API_KEY = 'test-key';
    process.env.OPENAI_BASE_URL = server.url;
    try {
      const pieces = ['The ', 'answer ', 'is ', 'forty', '-two', '.'];
      server.answer({ chunks: [...pieces.map(textChunk), usageChunk(9, 6)], delayMs: 150 });
      const runId = await startRun('What is the answer?', 'openai/gpt-test');
      const client = await listen(runId);
      await client.waitClosed();
      const done = await runWhen(runId, ended);
      assert.equal(done.status, 'completed', JSON.stringify(done.failure));
      assert.equal(done.output, pieces.join(''));
      assert.deepEqual(done.usage.output_tokens, 6);
      assert.equal(server.requests[0]!.stream, true);
      const message = client.received.find((e) => e.type === 'message' && e.data.role === 'assistant')!;
      const deltas = deltasOf(client.received);
      assert.ok(deltas.length >= 2, `${deltas.length} deltas over 750 ms`);
      assert.ok(deltas.every((d) => d.seq < message.seq));
      assert.equal(loggedText(asData(client.received.filter((e) => e.seq < message.seq))), message.data.text);
    } finally {
      delete process.env.OPENAI_API_KEY;
      delete process.env.OPENAI_BASE_URL;
      await server.close();
    }
  });

  test('a cancel mid-answer ends the run cancelled at once, and no delta is written after it', async () => {
    const { input } = slowReply(30, 500);
    const runId = await startRun(input);
    await vi.waitFor(async () => assert.ok(deltasOf((await events(runId)).map((e) => e.data)).length >= 1, 'a first delta'), { timeout: 20_000, interval: 50 });
    const cancelled = await call('POST', `/v2/runs/${runId}/cancel`, user.token);
    assert.equal(cancelled.status, 200);
    assert.equal(cancelled.body.status, 'cancelled');
    const atCancel = await events(runId);
    // Past a second: the worker has noticed (its next write is refused, or its watch reads the run), and nothing follows.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const later = await events(runId);
    assert.equal(later.length, atCancel.length, 'no event after the cancel');
    assert.deepEqual(later.at(-1)!.data, { type: 'run.status', data: { status: 'cancelled' } });
    assert.equal(later.filter((e) => e.data.type === 'message' && e.data.data.role === 'assistant').length, 0, 'a cut-short answer has no message');
    assert.equal((await get(`/v2/runs/${runId}`)).body.status, 'cancelled');
  });

  test('a worker that dies mid-answer: its successor replays the turn and continues the logged text, so the deltas still add up to the message', async () => {
    const { text, input } = slowReply(16, 250);
    const runId = await startRun(input);
    await vi.waitFor(async () => assert.ok(deltasOf((await events(runId)).map((e) => e.data)).length >= 2, 'two deltas'), { timeout: 20_000, interval: 50 });
    // As if the worker died mid-answer: another owner holds the lease for 2 more seconds; the worker's next write is refused and it stops.
    await stack.table.db.send(
      new UpdateCommand({
        TableName: stack.tableName,
        Key: keys.run(runId),
        UpdateExpression: 'SET lease_owner = :dead, lease_until = :until',
        ExpressionAttributeValues: { ':dead': 'dead-worker', ':until': Date.now() + 2_000 },
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const half = await events(runId);
    const logged = loggedText(half.map((e) => e.data));
    assert.ok(logged.length > 0 && logged.length < text.length && text.startsWith(logged), `half an answer logged: ${JSON.stringify(logged)}`);
    // SQS redelivers the dead worker's message: the copy waits for the lease, then a worker takes the run over.
    const body = JSON.stringify({ run_id: runId, machine_size: 'small' });
    const { makeHandler } = await import('../../functions/workers/run-tasks.js');
    const answer = await makeHandler()(
      { Records: [{ messageId: randomUUID(), body, attributes: { ApproximateReceiveCount: '2' } }] } as never,
      { getRemainingTimeInMillis: () => 900_000 } as never,
    );
    assert.deepEqual(answer, { batchItemFailures: [] });
    const done = await runWhen(runId, ended);
    assert.equal(done.status, 'completed');
    assert.equal(done.output, text);
    const all = (await events(runId)).map((e) => e.data);
    const message = all.findIndex((e) => e.type === 'message' && e.data.role === 'assistant');
    const deltas = all.slice(0, message).filter((e) => e.type === 'message.delta');
    assert.ok(
      deltas.every((e) => e.type === 'message.delta' && !e.data.restart),
      'a deterministic replay continues: no restart',
    );
    assert.equal(deltas.map((e) => (e.type === 'message.delta' ? e.data.text : '')).join(''), text, 'every word once, in order');
    assert.equal(all.filter((e) => e.type === 'message' && e.data.role === 'user').length, 1, 'the user’s message once');
  });
});
