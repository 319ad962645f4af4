import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, test, vi } from 'vitest';
import { adminCommands } from '#accounts/admin-commands.js';
import { REQUEST_TERMINAL } from '#execution/model.js';
import { enqueueNodeTasks, type NodeTask } from '#execution/node-queue.js';
import { requestEventsReader } from '#execution/request-events.js';
import { startRequest } from '#execution/start.js';
import { streamMetrics } from '#execution/stream.js';
import { workflowRequests } from '#execution/workflow-requests.js';
import { keys, ttlFromDate } from '#platform/table/keys.js';
import { webhookNotices } from '#webhooks/index.js';
import { chatsRepo } from '#workflows/chats-repository.js';
import { workflowsRepo } from '#workflows/workflows-repository.js';
import { pendingRequest } from '../helpers/pending-request.js';
import { bearer, signedUpUser, startTestStack } from '../helpers/stack.js';
import { apiFor, createVersion, type TestNode, transform } from '../helpers/workflows.js';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let user: Awaited<ReturnType<typeof signedUpUser>>;

beforeAll(async () => {
  stack = await startTestStack();
  user = await signedUpUser(stack);
});
afterAll(async () => {
  await stack.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TERMINAL: readonly string[] = REQUEST_TERMINAL;
const listenPath = (id: string) => `/v1/workflow-requests/${id}/listen`;

const api = apiFor(
  () => stack.url,
  () => user.token,
);
const version = (nodes: TestNode[], edges: Array<{ from: string; to: string }>) => createVersion(api, nodes, edges);

const chain = (length: number) => {
  const nodes = Array.from({ length }, (_, i) => transform(`n${i}`, i === 0 ? '{ "n": 1 }' : '$'));
  return { nodes, edges: nodes.slice(1).map((n, i) => ({ from: nodes[i]!.id, to: n.id })) };
};

/**
 * A request created exactly as POST /run does, but whose entry tasks are
 * held back: the listener connects to a request that has not moved yet, and
 * `release()` starts it.
 */
async function heldRun(v: { id: string; entry_node_ids: string[] }) {
  let held: NodeTask[] = [];
  const request = await startRequest(
    {
      requests: workflowRequests(stack.table),
      versions: workflowsRepo(stack.table),
      chats: chatsRepo(stack.table),
      webhooks: webhookNotices(stack.table),
      enqueue: async (tasks) => {
        held = tasks;
      },
    },
    user.accountId,
    { workflow_version_id: v.id, entry_node_ids: v.entry_node_ids },
  );
  return { id: request.id, release: () => enqueueNodeTasks(held) };
}

/** A request with one pending node that nothing will ever run: only what a test appends happens. */
async function idleRequest(accountId = user.accountId, createdAt = new Date()) {
  const { id, nodeId, versionId, request, node } = pendingRequest(accountId, createdAt);
  await workflowRequests(stack.table).create(request, [node]);
  return { id, nodeId, versionId, node };
}

/**
 * Writes a one-event page at `seq` straight into the table. The engine's
 * writer never leaves a seq out (lib/events/pages.ts), but a log can
 * still have holes (expired pages, another writer of the same format): this
 * makes them.
 */
async function writeEvent(requestId: string, seq: number, data: Record<string, unknown>, expiresAt = new Date(Date.now() + 86_400_000)) {
  await stack.table.db.send(
    new PutCommand({
      TableName: stack.tableName,
      Item: {
        ...keys.requestEvent(requestId, seq),
        entity: 'request_event_page',
        first_seq: seq,
        last_seq: seq,
        events: [{ seq, created_at: new Date().toISOString(), data }],
        ttl: ttlFromDate(expiresAt),
      },
    }),
  );
}

interface Frame {
  id?: string;
  data: string;
  // biome-ignore lint/suspicious/noExplicitAny: a frame's JSON, read field by field
  json?: Record<string, any>;
  at: number;
}

/** A raw SSE reader over fetch: every frame with its own id line (or none), and whether the server ended the stream. */
async function rawListen(requestId: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const response = await fetch(`${stack.url}${listenPath(requestId)}`, { headers: { ...bearer(user.token), ...headers }, signal: abort.signal });
  const frames: Frame[] = [];
  let closed = false;
  let failed: unknown;
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of waiters) w();
  };
  const pump = (async () => {
    if (!response.body) return;
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const frame: Frame = { data: '', at: Date.now() };
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('id: ')) frame.id = line.slice(4);
          else if (line.startsWith('data: ')) data.push(line.slice(6));
          else assert.fail(`unexpected line ${JSON.stringify(line)}`);
        }
        frame.data = data.join('\n');
        if (frame.data !== 'keepalive') frame.json = JSON.parse(frame.data);
        frames.push(frame);
      }
      notify();
    }
    assert.equal(buffer, '', 'the stream ends on a frame boundary');
  })()
    .catch((error) => {
      if (!abort.signal.aborted) failed = error;
    })
    .finally(() => {
      closed = true;
      notify();
    });
  const until = async (probe: () => boolean, timeoutMs: number, what: string) => {
    const deadline = Date.now() + timeoutMs;
    while (!probe()) {
      if (failed) throw failed;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; frames: ${JSON.stringify(frames.map((f) => [f.id, f.data]))}`);
      await new Promise<void>((resolve) => {
        const wake = () => {
          waiters.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, 100);
        waiters.add(wake);
      });
    }
  };
  return {
    response,
    frames,
    data: () => frames.filter((f) => f.json),
    isClosed: () => closed,
    /** Waits until `count` data (JSON) frames have arrived. */
    waitData: (count: number, timeoutMs = 15_000) => until(() => frames.filter((f) => f.json).length >= count, timeoutMs, `${count} data frames`),
    waitFor: (probe: (f: Frame) => boolean, timeoutMs = 15_000, what = 'a frame') => until(() => frames.some(probe), timeoutMs, what),
    /** Waits for the server to end the stream. */
    waitClosed: async (timeoutMs = 15_000) => {
      await until(() => closed, timeoutMs, 'the server to close the stream');
      if (failed) throw failed;
      await pump;
    },
    close: () => abort.abort(),
  };
}

/** The state a client builds from the stream: the latest status and output per node, and the request. */
// biome-ignore lint/suspicious/noExplicitAny: stream payloads, read field by field
function fold(payloads: Array<Record<string, any>>) {
  const nodes = new Map<string, { status: string; output_data: unknown }>();
  let request: { status: string } | undefined;
  for (const p of payloads) {
    if (p.node_execution) nodes.set(p.node_execution.node_id, { status: p.node_execution.status, output_data: p.node_execution.output_data });
    if (p.workflow_request) request = p.workflow_request;
  }
  return { nodes, request };
}

// biome-ignore lint/suspicious/noExplicitAny: a stream payload, read field by field
const isTerminal = (p: Record<string, any> | undefined) => TERMINAL.includes(p?.workflow_request?.status);

/** Opens an EventSource with a bearer token (through its custom fetch), recording every message. */
function eventSource(requestId: string, options: { closeOnTerminal: boolean }) {
  const messages: Array<{ data: string; lastEventId: string }> = [];
  const errors: Array<{ code?: number; message?: string }> = [];
  const source = new EventSource(`${stack.url}${listenPath(requestId)}`, {
    fetch: (url, init) => fetch(url, { ...init, headers: { ...init.headers, ...bearer(user.token) } }),
  });
  source.addEventListener('message', (event) => {
    messages.push({ data: event.data, lastEventId: event.lastEventId });
    if (options.closeOnTerminal && event.data !== 'keepalive' && isTerminal(JSON.parse(event.data))) source.close();
  });
  source.addEventListener('error', (event) => errors.push({ code: event.code, message: event.message }));
  return {
    source,
    messages,
    errors,
    json: () => messages.filter((m) => m.data !== 'keepalive').map((m) => ({ id: m.lastEventId, payload: JSON.parse(m.data) })),
  };
}

async function eventually(probe: () => boolean, timeoutMs: number, what: string) {
  await vi.waitFor(() => assert.ok(probe(), `timed out waiting for ${what}`), { timeout: timeoutMs, interval: 50 });
}

describe('GET /v1/workflow-requests/{id}/listen', () => {
  test('EventSource: the snapshot first, then live updates up to the terminal payload; the server closes the stream', async () => {
    const { nodes, edges } = chain(3);
    const run = await heldRun(await version(nodes, edges));
    const client = eventSource(run.id, { closeOnTerminal: true });
    const raw = await rawListen(run.id, { 'X-Request-Id': 'listen-trace-1' });
    assert.equal(raw.response.status, 200);
    assert.equal(raw.response.headers.get('content-type'), 'text/event-stream');
    assert.equal(raw.response.headers.get('cache-control'), 'no-cache');
    assert.equal(raw.response.headers.get('x-accel-buffering'), 'no');
    assert.equal(raw.response.headers.get('x-request-id'), 'listen-trace-1');

    // Snapshot: every node execution (pending or blocked: nothing runs yet), then the request, all at the watermark.
    await raw.waitData(4);
    await eventually(() => client.json().length >= 4, 10_000, 'the EventSource snapshot');
    const snapshot = client.json().slice(0, 4);
    assert.deepEqual(new Set(snapshot.map((m) => m.id)), new Set(['0']), 'a fresh request is at seq 0');
    assert.deepEqual(new Set(snapshot.slice(0, 3).map((m) => m.payload.node_execution.node_id)), new Set(nodes.map((n) => n.id)));
    for (const m of snapshot.slice(0, 3)) {
      assert.ok(['pending', 'blocked'].includes(m.payload.node_execution.status));
      assert.equal(m.payload.node_execution.workflow_request_id, run.id);
    }
    assert.deepEqual(snapshot[3]!.payload.workflow_request.status, 'pending');
    assert.equal(snapshot[3]!.payload.workflow_request.id, run.id);

    await run.release();
    await eventually(() => client.source.readyState === EventSource.CLOSED, 20_000, 'the terminal payload');
    const live = client.json().slice(4);
    // Transform nodes settle straight from pending/blocked to completed (lib/execution/executor.ts, pure nodes), and a
    // request whose nodes all finish within one invocation goes from pending to completed in one write (no in_progress).
    assert.ok(live.length >= 4, `3 nodes complete, then the request: ${JSON.stringify(live)}`);
    const ids = live.map((m) => Number(m.id));
    for (const [i, id] of ids.entries()) {
      assert.ok(Number.isInteger(id) && id > (i === 0 ? 0 : ids[i - 1]!), `ids strictly increase: ${ids}`);
    }
    assert.ok(
      client.messages.every((m) => m.data === 'keepalive' || m.lastEventId !== ''),
      'every data message carries its own id',
    );
    const last = live.at(-1)!.payload;
    assert.equal(last.workflow_request.status, 'completed');
    const state = fold(client.json().map((m) => m.payload));
    for (const n of nodes) assert.equal(state.nodes.get(n.id)?.status, 'completed');
    assert.deepEqual(state.nodes.get(nodes[2]!.id)?.output_data, { [nodes[1]!.id]: { [nodes[0]!.id]: { n: 1 } } });

    // The raw reader sees the server end the stream right after the terminal payload.
    await raw.waitClosed();
    assert.ok(isTerminal(raw.data().at(-1)!.json));
    assert.deepEqual(
      raw.data().map((f) => f.id),
      client.json().map((m) => m.id),
      'both clients got the same frames',
    );
  });

  test('EventSource reconnecting after the end of a finished request gets 204 and stops', async () => {
    const { nodes, edges } = chain(1);
    const run = await heldRun(await version(nodes, edges));
    await run.release();
    // Finished, and its terminal event logged (the engine appends it just after the status changes).
    await vi.waitFor(
      async () => {
        const { events } = await requestEventsReader(stack.table).eventsAfter(run.id, 0, 100, true);
        assert.ok(
          events.some((e) => isTerminal(e.data)),
          `the terminal event is logged: ${JSON.stringify(events)}`,
        );
      },
      { timeout: 15_000, interval: 50 },
    );
    const client = eventSource(run.id, { closeOnTerminal: false });
    await eventually(() => client.source.readyState === EventSource.CLOSED, 15_000, 'EventSource to give up');
    const received = client.json();
    assert.equal(received.length, 2, 'one snapshot: the node and the finished request');
    assert.equal(received[1]!.payload.workflow_request.status, 'completed');
    assert.ok(
      client.errors.some((e) => e.code === 204),
      JSON.stringify(client.errors),
    );
  });

  test('a run started over HTTP streams to a state that matches the execution tree', async () => {
    const start = transform('start', '{ "v": 2 }');
    const left = transform('left', '"L"');
    const right = transform('right', '"R"');
    const join = transform('join', '$');
    const v = await version(
      [start, left, right, join],
      [
        { from: start.id, to: left.id },
        { from: start.id, to: right.id },
        { from: left.id, to: join.id },
        { from: right.id, to: join.id },
      ],
    );
    const started = await api('POST', '/v1/workflow-requests/run', { workflow_version_id: v.id, entry_node_ids: v.entry_node_ids });
    assert.equal(started.status, 202);
    const id = started.body.workflow_request_id as string;
    const raw = await rawListen(id);
    await raw.waitClosed(20_000);
    const payloads = raw.data().map((f) => f.json!);
    assert.ok(isTerminal(payloads.at(-1)));
    const state = fold(payloads);
    const tree = (await api('GET', `/v1/workflow-requests/${id}/tree`)).body as {
      workflow_request: { status: string };
      node_executions: Array<{ node_id: string; status: string; output_data: unknown }>;
    };
    assert.equal(state.request?.status, tree.workflow_request.status);
    for (const n of tree.node_executions) assert.deepEqual(state.nodes.get(n.node_id), { status: n.status, output_data: n.output_data });
  });

  test('Last-Event-ID resumes after it: only later events, none twice, none missed; a disconnected listener stops', async () => {
    const { nodes, edges } = chain(4);
    const run = await heldRun(await version(nodes, edges));
    const first = await rawListen(run.id);
    await first.waitData(5); // 4 nodes + the request
    await run.release();
    await first.waitFor((f) => Number(f.id) >= 3, 15_000, 'seq 3');
    first.close();
    // The client had processed up to seq 3 when it went away (it may have received more).
    const resumeAt = 3;
    const seen = first
      .data()
      .slice(5)
      .map((f) => Number(f.id))
      .filter((id) => id <= resumeAt);

    await vi.waitFor(async () => assert.ok(TERMINAL.includes((await api('GET', `/v1/workflow-requests/${run.id}`)).body.status), 'the request finished'), {
      timeout: 15_000,
      interval: 50,
    });
    const second = await rawListen(run.id, { 'Last-Event-ID': String(resumeAt) });
    await second.waitClosed(20_000);
    const resumed = second.data().map((f) => Number(f.id));
    assert.ok(resumed.length > 0);
    assert.ok(
      resumed.every((id) => id > resumeAt),
      `no snapshot, nothing at or before ${resumeAt}: ${resumed}`,
    );
    const all = [...seen, ...resumed];
    assert.deepEqual(
      all,
      Array.from({ length: all.length }, (_, i) => i + 1),
      'every seq exactly once, in order',
    );
    assert.ok(isTerminal(second.data().at(-1)!.json));

    // A listener whose client goes away stops at once.
    const idle = await idleRequest();
    const openBefore = streamMetrics.open.size;
    const abandoned = await rawListen(idle.id);
    await abandoned.waitData(2);
    assert.equal(streamMetrics.open.size, openBefore + 1);
    abandoned.close();
    await eventually(() => streamMetrics.open.size === openBefore, 2_000, 'the server to notice the disconnect');

    // Caught up on a finished request: 204. An id this stream never issued, or garbage: a fresh snapshot.
    const caughtUp = await fetch(`${stack.url}${listenPath(run.id)}`, { headers: { ...bearer(user.token), 'Last-Event-ID': String(all.at(-1)) } });
    assert.equal(caughtUp.status, 204);
    for (const bad of ['garbage', '-1', String(all.at(-1)! + 100)]) {
      const fresh = await rawListen(run.id, { 'Last-Event-ID': bad });
      await fresh.waitClosed();
      assert.equal(fresh.data().length, nodes.length + 1, `snapshot for Last-Event-ID ${bad}`);
      assert.ok(fresh.data().every((f) => f.id === String(all.at(-1))));
    }
  });

  test('a resume into events that expired with the retention period gets a snapshot instead', async () => {
    const old = await idleRequest(user.accountId, new Date(Date.now() - 8 * 86_400_000));
    const expired = new Date(Date.now() - 1000); // TTL passed, not deleted yet: reads must skip them
    await writeEvent(old.id, 1, { node_execution: { id: old.node.id, node_id: old.nodeId, status: 'in_progress' } }, expired);
    await writeEvent(old.id, 2, { node_execution: { id: old.node.id, node_id: old.nodeId, status: 'completed' } }, expired);
    await writeEvent(old.id, 3, { workflow_request: { id: old.id, status: 'in_progress', workflow_version_id: old.versionId } });
    const stream = await rawListen(old.id, { 'Last-Event-ID': '0' });
    await stream.waitData(2);
    assert.deepEqual(
      stream.data().map((f) => [f.id, Object.keys(f.json!)[0]]),
      [
        ['3', 'node_execution'],
        ['3', 'workflow_request'],
      ],
    );
    const { seq } = await workflowRequests(stack.table).appendEvent(old.id, {
      workflow_request: { id: old.id, status: 'failed', workflow_version_id: old.versionId },
    });
    await stream.waitClosed();
    assert.deepEqual(
      stream.data().map((f) => f.id),
      ['3', '3', String(seq)],
    );

    // A young request's missing event is a gap, not expiry: waited for, then skipped; no snapshot.
    const young = await idleRequest();
    await writeEvent(young.id, 2, { workflow_request: { id: young.id, status: 'completed', workflow_version_id: young.versionId } });
    const resumed = await rawListen(young.id, { 'Last-Event-ID': '0' });
    await resumed.waitClosed(10_000);
    assert.deepEqual(
      resumed.data().map((f) => f.id),
      ['2'],
    );
  });

  test('a finished request resumed past its terminal event gets the events after it, then its terminal state', async () => {
    const idle = await idleRequest();
    const repo = workflowRequests(stack.table);
    const stopped = await repo.transitionRequest(idle.id, ['pending'], { status: 'stopped', completed_at: new Date().toISOString() });
    const terminal = await repo.appendEvent(idle.id, { workflow_request: { id: idle.id, status: 'stopped', workflow_version_id: idle.versionId } });
    // A late node event, logged after the terminal one (a worker racing the stop).
    const late = await repo.appendEvent(idle.id, { node_execution: { id: idle.node.id, node_id: idle.nodeId, status: 'stopped' } });
    const stream = await rawListen(idle.id, { 'Last-Event-ID': String(terminal.seq) });
    await stream.waitClosed(10_000);
    assert.deepEqual(
      stream.data().map((f) => f.id),
      [String(late.seq), String(late.seq)],
    );
    assert.deepEqual(stream.data()[1]!.json, {
      workflow_request: { id: idle.id, status: 'stopped', workflow_version_id: idle.versionId, completed_at: stopped!.completed_at },
    });
    const again = await fetch(`${stack.url}${listenPath(idle.id)}`, { headers: { ...bearer(user.token), 'Last-Event-ID': String(late.seq) } });
    assert.equal(again.status, 204);
  });

  test('an idle stream sends keepalives; a hole in the log is waited for, then skipped; polling cost stays bounded', async () => {
    const idle = await idleRequest();
    const repo = workflowRequests(stack.table);
    const stream = await rawListen(idle.id);
    await stream.waitData(2);
    assert.deepEqual(
      stream.data().map((f) => f.id),
      ['0', '0'],
    );

    // Idle: keepalives every 3 s; measure the reads of this one listener meanwhile.
    const before = { queries: streamMetrics.queries, gets: streamMetrics.gets, units: streamMetrics.readUnits, at: Date.now() };
    await stream.waitFor((f) => f.data === 'keepalive', 4_000, 'a keepalive');
    // Time itself is measured here: a second keepalive is due within 3.5 s, and the polling rate is read over this idle time.
    await sleep(3_500);
    const seconds = (Date.now() - before.at) / 1000;
    const keepalives = stream.frames.filter((f) => f.data === 'keepalive');
    assert.ok(keepalives.length >= 2, `keepalives: ${keepalives.length}`);
    assert.ok(keepalives.every((f) => f.id === undefined));
    const queriesPerSecond = (streamMetrics.queries - before.queries) / seconds;
    const unitsPerSecond = (streamMetrics.readUnits - before.units) / seconds;
    console.info(
      `idle listener: ${queriesPerSecond.toFixed(2)} queries/s, ${unitsPerSecond.toFixed(2)} read units/s (DynamoDB Local), ${((streamMetrics.gets - before.gets) / seconds).toFixed(3)} GetItem/s over ${seconds.toFixed(1)} s`,
    );
    assert.ok(queriesPerSecond <= 1.3, `at most about one Query per second while idle: ${queriesPerSecond}`);

    // Seq 1 is missing; seq 2 is delivered only after the grace period.
    const appendedAt = Date.now();
    await writeEvent(idle.id, 2, {
      node_execution: { id: idle.node.id, node_id: idle.nodeId, status: 'in_progress', output_data: null, attempt_count: 1 },
    });
    await stream.waitFor((f) => f.id === '2', 10_000, 'seq 2');
    const waited = stream.frames.find((f) => f.id === '2')!.at - appendedAt;
    assert.ok(waited >= 4_000 && waited < 8_000, `held back for the 5 s grace period, got ${waited} ms`);

    // A hole filled within the grace period is delivered in order, without the wait.
    const slow = 3;
    const after = { seq: 4 };
    await writeEvent(idle.id, after.seq, {
      node_execution: { id: idle.node.id, node_id: idle.nodeId, status: 'completed', output_data: 7, attempt_count: 1 },
    });
    // The hole stays open for a while, well within the 5 s grace period: time is what this part is about.
    await sleep(600);
    const filledAt = Date.now();
    await writeEvent(idle.id, slow, { workflow_request: { id: idle.id, status: 'in_progress', workflow_version_id: idle.versionId } });
    await stream.waitFor((f) => f.id === String(after.seq), 5_000, `seq ${after.seq}`);
    assert.ok(stream.frames.find((f) => f.id === String(after.seq))!.at - filledAt < 3_000);

    // The terminal payload ends the stream.
    await repo.appendEvent(idle.id, { workflow_request: { id: idle.id, status: 'stopped', workflow_version_id: idle.versionId } });
    await stream.waitClosed();
    assert.deepEqual(
      stream
        .data()
        .slice(2)
        .map((f) => f.id),
      ['2', '3', '4', '5'],
    );
    assert.equal(stream.data().at(-1)!.json!.workflow_request.status, 'stopped');
    assert.equal(stream.data().find((f) => f.id === '2')!.json!.node_execution.workflow_request_id, idle.id);
  });

  test('the stream ends cleanly before its time limit, and a reconnect with Last-Event-ID continues', async () => {
    const idle = await idleRequest();
    const repo = workflowRequests(stack.table);
    const previous = process.env.STREAM_MAX_SECONDS;
    process.env.STREAM_MAX_SECONDS = '2';
    try {
      const first = await rawListen(idle.id);
      await first.waitData(2);
      const e1 = await repo.appendEvent(idle.id, {
        node_execution: { id: idle.node.id, node_id: idle.nodeId, status: 'in_progress', output_data: null, attempt_count: 1 },
      });
      await first.waitFor((f) => f.id === String(e1.seq));
      const openedAt = first.frames[0]!.at;
      await first.waitClosed(5_000);
      assert.ok(Date.now() - openedAt < 4_000, 'ended by the 2 s limit');
      assert.ok(!isTerminal(first.data().at(-1)!.json), 'ended without a terminal payload');

      // Meanwhile the request moves on; the client resumes where it stopped.
      const e2 = await repo.appendEvent(idle.id, {
        node_execution: { id: idle.node.id, node_id: idle.nodeId, status: 'completed', output_data: 1, attempt_count: 1 },
      });
      process.env.STREAM_MAX_SECONDS = '30';
      const second = await rawListen(idle.id, { 'Last-Event-ID': first.data().at(-1)!.id! });
      await second.waitFor((f) => f.id === String(e2.seq));
      await repo.appendEvent(idle.id, { workflow_request: { id: idle.id, status: 'completed', workflow_version_id: idle.versionId } });
      await second.waitClosed();
      assert.deepEqual(
        second.data().map((f) => f.id),
        [String(e2.seq), String(e2.seq + 1)],
      );
    } finally {
      if (previous === undefined) delete process.env.STREAM_MAX_SECONDS;
      else process.env.STREAM_MAX_SECONDS = previous;
    }
  });

  test('polling cost per listener stays bounded while events flow to several listeners', async () => {
    const idle = await idleRequest();
    const repo = workflowRequests(stack.table);
    // Before the listeners open: reset forgets the open listeners' time too.
    streamMetrics.reset();
    const streams = await Promise.all([1, 2, 3].map(() => rawListen(idle.id)));
    await Promise.all(streams.map((stream) => stream.waitData(2)));
    // The follow loop's polling, from here on: the opening reads (ownership, snapshot) are one-off.
    const opened = { queries: streamMetrics.queries, gets: streamMetrics.gets, units: streamMetrics.readUnits, seconds: streamMetrics.listenerSeconds() };
    // Time is part of what is measured (reads per listener-second), so the events are spread over about 2 s.
    for (let i = 0; i < 8; i++) {
      await repo.appendEvent(idle.id, { node_execution: { id: idle.node.id, node_id: idle.nodeId, status: 'in_progress' } });
      await sleep(250);
    }
    await repo.transitionRequest(idle.id, ['pending'], { status: 'stopped', completed_at: new Date().toISOString() });
    await repo.appendEvent(idle.id, { workflow_request: { id: idle.id, status: 'stopped', workflow_version_id: idle.versionId } });
    await Promise.all(streams.map((stream) => stream.waitClosed(10_000)));
    const seconds = streamMetrics.listenerSeconds() - opened.seconds;
    const rate = {
      queries: (streamMetrics.queries - opened.queries) / seconds,
      gets: (streamMetrics.gets - opened.gets) / seconds,
      units: (streamMetrics.readUnits - opened.units) / seconds,
    };
    console.info(
      `${streams.length} listeners, ${seconds.toFixed(1)} listener-seconds: ${rate.queries.toFixed(2)} queries, ${rate.gets.toFixed(3)} GetItem, ${rate.units.toFixed(2)} read units (DynamoDB Local) per listener-second`,
    );
    assert.ok(streamMetrics.queries > opened.queries, 'the listeners polled');
    assert.ok(rate.queries <= 1000 / 250, 'never more than one poll per 250 ms on average');
  });

  test('refusals come before any stream: 401 with WWW-Authenticate, 403 suspended, identical 404s for foreign, unknown and malformed ids', async () => {
    const own = await idleRequest();
    const noToken = await fetch(`${stack.url}${listenPath(own.id)}`, { headers: { 'X-Request-Id': 'trace-401' } });
    assert.equal(noToken.status, 401);
    assert.equal(noToken.headers.get('content-type'), 'application/problem+json');
    assert.equal(noToken.headers.get('www-authenticate'), 'Bearer realm="workflow-service"');
    assert.equal(noToken.headers.get('x-request-id'), 'trace-401');
    const problem = (await noToken.json()) as Record<string, unknown>;
    assert.equal(problem.code, 'unauthorized');
    assert.equal(problem.status, 401);
    assert.equal(problem.trace_id, 'trace-401');

    const other = await signedUpUser(stack);
    const foreignRequest = await idleRequest(other.accountId);
    const ask = (id: string) => fetch(`${stack.url}${listenPath(id)}`, { headers: { ...bearer(user.token), 'X-Request-Id': 'trace-404' } });
    const bodies: unknown[] = [];
    for (const id of [foreignRequest.id, randomUUID(), 'not-a-uuid']) {
      const response = await ask(id);
      assert.equal(response.status, 404);
      assert.equal(response.headers.get('content-type'), 'application/problem+json');
      bodies.push(await response.json());
    }
    assert.deepEqual(bodies[0], bodies[1]);
    assert.deepEqual(bodies[0], bodies[2]);
    assert.equal((bodies[0] as { code: string }).code, 'not_found');

    await adminCommands(stack.table)['account:suspend']({ 'account-id': other.accountId });
    const suspended = await fetch(`${stack.url}${listenPath(foreignRequest.id)}`, { headers: bearer(other.token) });
    assert.equal(suspended.status, 403);
    assert.equal(((await suspended.json()) as { code: string }).code, 'forbidden');
  });
});

describe('the event log under concurrent writers (DynamoDB Local)', () => {
  test('writers racing for the same seqs never overlap: pages tile 1..N, each event once, each writer’s own in order', async () => {
    const idle = await idleRequest();
    const repo = workflowRequests(stack.table);
    const event = (writer: number, i: number) => ({ node_execution: { id: idle.node.id, node_id: idle.nodeId, status: 'in_progress', writer, i } });
    // Half of them start from a stale guess (seq 1), as a redelivered task's hint would be.
    const written = await Promise.all(
      Array.from({ length: 8 }, (_, writer) =>
        repo.appendEvents(
          idle.id,
          [0, 1, 2].map((i) => event(writer, i)),
          writer % 2 === 0 ? 1 : undefined,
        ),
      ),
    );
    const seqs = written.flat().map((e) => e.seq);
    assert.deepEqual(
      [...seqs].sort((a, b) => a - b),
      Array.from({ length: 24 }, (_, i) => i + 1),
    );
    for (const events of written) {
      assert.ok(events.every((e, i) => i === 0 || e.seq > events[i - 1]!.seq));
    }
    const { events } = await requestEventsReader(stack.table).eventsAfter(idle.id, 0, 100, true);
    assert.deepEqual(
      events.map((e) => e.seq),
      Array.from({ length: 24 }, (_, i) => i + 1),
    );
    const fromMiddle = await requestEventsReader(stack.table).eventsAfter(idle.id, 5, 100, false);
    assert.deepEqual(
      fromMiddle.events.map((e) => e.seq),
      Array.from({ length: 19 }, (_, i) => i + 6),
    );
  });
});
