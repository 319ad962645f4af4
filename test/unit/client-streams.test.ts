import assert from 'node:assert/strict';
import { createClient, ProblemError, type RunEvent, type StreamOptions, type WorkflowStreamEvent } from '@workflow-service/client';
import { afterEach, describe, test, vi } from 'vitest';

// The typed client's event streams (clients/typescript/src/sse.ts, streams.ts) against a fake fetch:
// SSE parsing, the end of each stream, and resuming with Last-Event-ID after a dropped connection.

/** A stream answer: its chunks, then it ends (`close`), breaks (`drop`) or stays open (`hold`). */
interface Connection {
  chunks: string[];
  end: 'close' | 'drop' | 'hold';
}
type Answer = Connection | Response | Error;

interface Seen {
  url: string;
  headers: Headers;
  signal: AbortSignal;
}

function fakeServer(...answers: Answer[]) {
  const seen: Seen[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    seen.push({ url: request.url, headers: new Headers(request.headers), signal: request.signal });
    const answer = answers.shift();
    if (!answer) throw new Error('no answer left');
    if (answer instanceof Error) throw answer;
    if (answer instanceof Response) return answer;
    const encoder = new TextEncoder();
    const chunks = [...answer.chunks];
    // One chunk a read, as from a socket (an error clears a stream's queue: it must come after the reads).
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        request.signal.addEventListener('abort', () => controller.error(request.signal.reason));
      },
      pull(controller) {
        const chunk = chunks.shift();
        if (chunk !== undefined) controller.enqueue(encoder.encode(chunk));
        else if (answer.end === 'close') controller.close();
        else if (answer.end === 'drop') controller.error(new TypeError('terminated'));
        else return new Promise<void>(() => {}); // held open until aborted
      },
    });
    return new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
  };
  return { fetch, seen };
}

const BASE = 'http://service.test';
const client = (fetch: (request: Request) => Promise<Response>, retries = 2) => createClient({ baseUrl: BASE, token: 'wsk_t', fetch, retries });

const runEvent = (seq: number, type: RunEvent['type'], data: Record<string, unknown>) => ({
  id: `ev${seq}`,
  run_id: 'run_1',
  seq,
  type,
  created_at: '2026-01-01T00:00:00.000Z',
  data,
});
/** A run event as the service sends it. */
const frame = (event: ReturnType<typeof runEvent>) => `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
const E1 = runEvent(1, 'run.status', { status: 'running' });
const E2 = runEvent(2, 'message', { role: 'assistant', text: 'hello' });
const E3 = runEvent(3, 'usage', { input_tokens: 1, output_tokens: 1, cost_micro_usd: 2 });
const END = runEvent(4, 'run.status', { status: 'completed' });
/** The server's reconnection hint, so that tests do not wait the default second. */
const RETRY = 'retry: 5\n\n';

async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of events) items.push(item);
  return items;
}

const runEvents = (fetch: (request: Request) => Promise<Response>, options?: StreamOptions) => collect(client(fetch).streamRunEvents('run_1', options));

afterEach(() => {
  vi.useRealTimers();
});

describe('run events', () => {
  test('parses the stream, skips keepalives, and ends after the terminal run.status without waiting for the close', async () => {
    const whole = frame(E2);
    const { fetch, seen } = fakeServer({
      chunks: [frame(E1), ': keepalive\n\n', whole.slice(0, 20), whole.slice(20), `${frame(E3)}${frame(END)}`],
      end: 'hold',
    });
    const events = await runEvents(fetch);
    assert.deepEqual(events, [E1, E2, E3, END]);
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.url, `${BASE}/v2/runs/run_1/events`);
    assert.equal(seen[0]!.headers.get('Accept'), 'text/event-stream');
    assert.equal(seen[0]!.headers.get('Authorization'), 'Bearer wsk_t');
    assert.equal(seen[0]!.headers.has('Last-Event-ID'), false);
    assert.equal(seen[0]!.signal.aborted, true, 'the connection is closed');
  });

  test('a dropped connection is made again with Last-Event-ID, after the retry: hint', async () => {
    vi.useFakeTimers();
    const { fetch, seen } = fakeServer(
      { chunks: ['retry: 3000\n\n', frame(E1), frame(E2), 'id: ev3\nevent: usage\ndata: {"partial'], end: 'drop' },
      { chunks: [frame(E3), frame(END)], end: 'close' },
    );
    const stream = runEvents(fetch);
    await vi.advanceTimersByTimeAsync(2_999);
    assert.equal(seen.length, 1, 'not before the hint');
    await vi.advanceTimersByTimeAsync(1);
    assert.deepEqual(await stream, [E1, E2, E3, END], 'the partial message is not delivered');
    assert.equal(seen[1]!.headers.get('Last-Event-ID'), 'ev2');
    assert.equal(seen[1]!.headers.get('Authorization'), 'Bearer wsk_t');
  });

  test('a stream the server closes before the end (its time limit) is resumed too; a 204 then ends it', async () => {
    const { fetch, seen } = fakeServer(
      { chunks: [RETRY, frame(E1)], end: 'close' },
      { chunks: [': keepalive\n\n'], end: 'close' },
      { chunks: [frame(E2)], end: 'close' },
      new Response(null, { status: 204 }),
    );
    assert.deepEqual(await runEvents(fetch), [E1, E2]);
    assert.deepEqual(
      seen.map((s) => s.headers.get('Last-Event-ID')),
      [null, 'ev1', 'ev1', 'ev2'],
    );
  });

  test('lastEventId starts the stream after that event', async () => {
    const { fetch, seen } = fakeServer({ chunks: [frame(E3), frame(END)], end: 'close' });
    assert.deepEqual(await runEvents(fetch, { lastEventId: 'ev2' }), [E3, END]);
    assert.equal(seen[0]!.headers.get('Last-Event-ID'), 'ev2');
  });

  test('a refusal is a ProblemError: 404, or 410 when the events after Last-Event-ID expired', async () => {
    const problem = (status: number, code: string) =>
      new Response(JSON.stringify({ type: 't', title: 'x', status, detail: 'd', code, trace_id: 'tr' }), {
        status,
        headers: { 'Content-Type': 'application/problem+json' },
      });
    for (const [status, code] of [
      [404, 'not_found'],
      [410, 'event_cursor_expired'],
    ] as const) {
      const { fetch, seen } = fakeServer(problem(status, code));
      const error = await runEvents(fetch, { lastEventId: 'ev1' }).catch((e: unknown) => e);
      assert.ok(error instanceof ProblemError);
      assert.equal(error.code, code);
      assert.equal(seen.length, 1);
    }
  });

  test('the signal ends the iteration, without an error', async () => {
    const abort = new AbortController();
    const { fetch, seen } = fakeServer({ chunks: [frame(E1)], end: 'hold' });
    const events: unknown[] = [];
    for await (const event of client(fetch).streamRunEvents('run_1', { signal: abort.signal })) {
      events.push(event);
      abort.abort();
    }
    assert.deepEqual(events, [E1]);
    assert.equal(seen[0]!.signal.aborted, true);
  });

  test('leaving the loop closes the connection', async () => {
    const { fetch, seen } = fakeServer({ chunks: [frame(E1), frame(E2)], end: 'hold' });
    for await (const event of client(fetch).streamRunEvents('run_1')) {
      assert.deepEqual(event, E1);
      break;
    }
    assert.equal(seen[0]!.signal.aborted, true);
  });

  test('after `retries` connections in a row that sent nothing, the stream fails', async () => {
    vi.useFakeTimers();
    const { fetch, seen } = fakeServer(
      { chunks: [RETRY, frame(E1)], end: 'drop' },
      { chunks: [], end: 'drop' },
      { chunks: [], end: 'drop' },
      { chunks: [frame(END)], end: 'close' },
    );
    const stream = collect(client(fetch, 1).streamRunEvents('run_1')).catch((e: unknown) => e);
    await vi.runAllTimersAsync();
    const error = await stream;
    assert.ok(error instanceof TypeError, String(error));
    assert.equal(seen.length, 3, 'one good connection, then two that sent nothing');
  });
});

describe('workflow request events', () => {
  const snapshot = (id: number, nodes: string[], status: string) => [
    ...nodes.map((node) => `id: ${id}\ndata: ${JSON.stringify({ node_execution: { id: `ne-${node}`, node_id: node, status: 'completed' } })}\n\n`),
    `id: ${id}\ndata: ${JSON.stringify({ workflow_request: { id: 'wr1', status, workflow_version_id: 'v1' } })}\n\n`,
  ];
  const update = (id: number, payload: object) => `id: ${id}\ndata: ${JSON.stringify(payload)}\n\n`;
  const ids = (events: WorkflowStreamEvent[]) => events.map((e) => e.id);
  const requestEvents = (fetch: (request: Request) => Promise<Response>, options?: StreamOptions) => collect(client(fetch).streamRequestEvents('wr1', options));

  test('the snapshot, then updates, skipping `data: keepalive`, to the terminal payload', async () => {
    const { fetch, seen } = fakeServer({
      chunks: [
        ...snapshot(4, ['a', 'b'], 'in_progress'),
        'data: keepalive\n\n',
        update(5, { node_execution: { id: 'ne-c', node_id: 'c', status: 'completed' } }),
        update(6, { workflow_request: { id: 'wr1', status: 'completed', workflow_version_id: 'v1' } }),
      ],
      end: 'hold',
    });
    const events = await requestEvents(fetch);
    assert.deepEqual(ids(events), ['4', '4', '4', '5', '6']);
    assert.equal(events[4]!.data.workflow_request?.status, 'completed');
    assert.equal(seen[0]!.url, `${BASE}/v1/workflow-requests/wr1/listen`);
    assert.equal(seen[0]!.signal.aborted, true);
  });

  test('a connection dropped inside the snapshot starts again without Last-Event-ID, not cutting it short', async () => {
    const [a, b, request] = snapshot(4, ['a', 'b'], 'in_progress');
    const { fetch, seen } = fakeServer(
      { chunks: [RETRY, a!], end: 'drop' },
      { chunks: [a!, b!, request!, update(5, { workflow_request: { id: 'wr1', status: 'failed', workflow_version_id: 'v1' } })], end: 'close' },
    );
    assert.deepEqual(ids(await requestEvents(fetch)), ['4', '4', '4', '4', '5']);
    assert.equal(seen[1]!.headers.has('Last-Event-ID'), false);
  });

  test('after updates, it resumes after the last one shown complete', async () => {
    const { fetch, seen } = fakeServer(
      {
        chunks: [
          RETRY,
          ...snapshot(4, ['a'], 'in_progress'),
          update(5, { node_execution: { id: 'ne-b', node_id: 'b', status: 'in_progress' } }),
          update(6, { node_execution: { id: 'ne-b', node_id: 'b', status: 'completed' } }),
        ],
        end: 'drop',
      },
      { chunks: [update(6, { node_execution: { id: 'ne-b', node_id: 'b', status: 'completed' } })], end: 'drop' },
      new Response(null, { status: 204 }),
    );
    assert.deepEqual(ids(await requestEvents(fetch)), ['4', '4', '5', '6', '6']);
    assert.deepEqual(
      seen.map((s) => s.headers.get('Last-Event-ID')),
      [null, '5', '5'],
    );
  });

  test('lastEventId resumes after it', async () => {
    const { fetch, seen } = fakeServer({
      chunks: [update(8, { workflow_request: { id: 'wr1', status: 'stopped', workflow_version_id: 'v1' } })],
      end: 'close',
    });
    assert.deepEqual(ids(await requestEvents(fetch, { lastEventId: '7' })), ['8']);
    assert.equal(seen[0]!.headers.get('Last-Event-ID'), '7');
  });
});
