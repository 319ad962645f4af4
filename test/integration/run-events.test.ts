import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, test, vi } from 'vitest';
import { ROUTES, routeOf } from '#app/routes.js';
import { newRunId } from '#platform/ids.js';
import { keys } from '#platform/table/keys.js';
import { RunsEvents } from '#runs/contracts/runs-events.js';
import { runEventId } from '#runs/events.js';
import { isTerminal, type Run, type RunEventData } from '#runs/model.js';
import { runs } from '#runs/run-changes.js';
import { type Json, jsonCaller, withoutTraceId } from '../helpers/api.js';
import { runFixture } from '../helpers/run-fixture.js';
import { readSseBlocks } from '../helpers/sse-blocks.js';
import { bearer, signedUpUser, startTestStack } from '../helpers/stack.js';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let user: Awaited<ReturnType<typeof signedUpUser>>;
let other: Awaited<ReturnType<typeof signedUpUser>>;

beforeAll(async () => {
  // The route is in the registry once `npm run openapi` has run; until then it is added here.
  const routes = ROUTES.some((r) => r.id === RunsEvents.id) ? ROUTES : [...ROUTES, routeOf(RunsEvents)];
  stack = await startTestStack({ routes });
  [user, other] = await Promise.all([signedUpUser(stack), signedUpUser(stack)]);
});
afterAll(async () => {
  await stack.stop();
});

const call = jsonCaller(() => stack.url);
const eventsPath = (runId: string, query = '') => `/v2/runs/${runId}/events${query}`;
const SSE = { Accept: 'text/event-stream' };

const status = (value: Run['status']): RunEventData => ({ type: 'run.status', data: { status: value } });
const message = (text: string): RunEventData => ({ type: 'message', data: { role: 'assistant', text } });

type End = 'completed' | 'failed' | 'cancelled';
/** The status a page of events ends its run with, if it does. */
const endOf = (page: RunEventData[]): End | undefined => {
  for (const e of page) if (e.type === 'run.status' && isTerminal(e.data.status)) return e.data.status as End;
  return undefined;
};

/** A run written as the service writes one: created with its first page of events, then one page per change. */
async function runWith(pages: RunEventData[][], accountId = user.accountId) {
  const repo = runs(stack.table);
  const at = new Date().toISOString();
  let run: Run = runFixture({
    id: newRunId(),
    account_id: accountId,
    harness_id: 'h_test',
    machine_id: 'mch_test',
    input: 'hello',
    harness: { model: 'local/echo', instructions: 'be brief', max_turns: 5, tools: [], mcp_servers: [] },
    running_since: at,
    created_at: at,
    started_at: at,
  });
  assert.ok(await repo.create(run, pages[0]!, []));
  run = { ...run, event_seq: pages[0]!.length };
  const change = async (events: RunEventData[], end?: End) => {
    const set = end ? { status: end, completed_at: new Date().toISOString() } : {};
    const ends = end
      ? { at: new Date(), costMicroUsd: 0, event: { id: randomUUID(), type: `run.${end}`, data: { id: run.id } }, releasesSlot: false }
      : undefined;
    const changed = await repo.change(run, { set, from: [run.status], events, ...(ends ? { ends } : {}) });
    assert.ok(changed, 'the change landed');
    run = changed;
  };
  for (const page of pages.slice(1)) await change(page, endOf(page));
  return { id: run.id, change, current: () => run };
}

/** Marks the page keyed `firstSeq` expired, as it reads once its TTL has passed and before DynamoDB deletes it. */
async function expirePage(runId: string, firstSeq: number) {
  await stack.table.db.send(
    new UpdateCommand({
      TableName: stack.tableName,
      Key: keys.runEvent(runId, firstSeq),
      UpdateExpression: 'SET #ttl = :past',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 3600 },
    }),
  );
}

const ENDED: RunEventData[][] = [[status('queued'), status('running')], [message('thinking')], [message('a'), message('b')], [status('completed')]];
const seqs = (body: Json) => (body.data as Array<{ seq: number }>).map((e) => e.seq);

interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

/** A raw SSE client over fetch: every message as sent, and whether the server ended the stream. */
async function listen(runId: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const response = await fetch(`${stack.url}${eventsPath(runId)}`, { headers: { ...bearer(user.token), ...SSE, ...headers }, signal: abort.signal });
  const messages: SseMessage[] = [];
  let closed = false;
  const pump = (async () => {
    const rest = await readSseBlocks(response.body, (block) => {
      const m: SseMessage = {};
      for (const line of block.split('\n')) {
        const match = /^(id|event|data): (.*)$/.exec(line);
        if (line.startsWith(':')) m.comment = line.slice(1).trim();
        else if (match) m[match[1] as 'id' | 'event' | 'data'] = match[2];
        else assert.fail(`unexpected line ${JSON.stringify(line)}`);
      }
      messages.push(m);
    });
    assert.equal(rest, '', 'the stream ends on a message boundary');
  })()
    .catch((error) => {
      if (!abort.signal.aborted) throw error;
    })
    .finally(() => {
      closed = true;
    });
  const events = () => messages.filter((m) => m.id).map((m) => ({ ...m, json: JSON.parse(m.data!) as Json }));
  return {
    response,
    events,
    isClosed: () => closed,
    waitEvents: (count: number) =>
      vi.waitFor(() => assert.ok(events().length >= count, `${events().length} of ${count} events`), { timeout: 15_000, interval: 50 }),
    waitClosed: async () => {
      await vi.waitFor(() => assert.ok(closed, 'the server closed the stream'), { timeout: 15_000, interval: 50 });
      await pump;
    },
    close: () => abort.abort(),
  };
}

describe('GET /v2/runs/{id}/events as JSON', () => {
  test('pages with limit and cursor in seq order; the last page of an ended run has no cursor', async () => {
    const run = await runWith(ENDED);
    const first = await call('GET', eventsPath(run.id, '?limit=2'), user.token);
    assert.equal(first.status, 200);
    assert.equal(first.type, 'application/json');
    assert.equal(first.headers.get('vary'), 'Accept');
    assert.deepEqual(seqs(first.body), [1, 2]);
    assert.equal(first.body.page.has_more, true);
    assert.deepEqual(first.body.data[0], {
      id: runEventId(run.id, 1),
      run_id: run.id,
      seq: 1,
      type: 'run.status',
      created_at: first.body.data[0].created_at,
      data: { status: 'queued' },
    });
    const pages = [seqs(first.body)];
    let cursor: string | null = first.body.page.next_cursor;
    while (cursor) {
      const next = await call('GET', eventsPath(run.id, `?limit=2&cursor=${encodeURIComponent(cursor)}`), user.token, undefined, {
        Accept: 'application/json',
      });
      assert.equal(next.status, 200);
      pages.push(seqs(next.body));
      cursor = next.body.page.next_cursor;
      if (!next.body.page.has_more) assert.equal(cursor, null, 'the run has ended');
    }
    assert.deepEqual(pages, [
      [1, 2],
      [3, 4],
      [5, 6],
    ]);
    // No Accept, or any type: JSON too.
    const any = await call('GET', eventsPath(run.id), user.token, undefined, { Accept: '*/*' });
    assert.deepEqual(seqs(any.body), [1, 2, 3, 4, 5, 6]);
    assert.deepEqual(any.body.page, { has_more: false, next_cursor: null });
  });

  test('limit 0 and 501 are 400 validation_failed naming limit in the query', async () => {
    const run = await runWith(ENDED);
    for (const limit of ['0', '501']) {
      const answer = await call('GET', eventsPath(run.id, `?limit=${limit}`), user.token);
      assert.equal(answer.status, 400, limit);
      assert.equal(answer.type, 'application/problem+json');
      assert.equal(answer.body.code, 'validation_failed');
      assert.deepEqual(
        answer.body.errors.map((e: Json) => [e.name, e.location]),
        [['limit', 'query']],
      );
    }
  });

  test('an unknown, malformed or other account’s run: the same 404', async () => {
    const foreign = await runWith(ENDED, other.accountId);
    const answers = await Promise.all([foreign.id, newRunId(), 'not-a-run'].map((id) => call('GET', eventsPath(id), user.token)));
    for (const answer of answers) {
      assert.equal(answer.status, 404);
      assert.equal(answer.body.code, 'not_found');
    }
    assert.deepEqual(withoutTraceId(answers[0]!.body), withoutTraceId(answers[1]!.body));
    assert.deepEqual(withoutTraceId(answers[0]!.body), withoutTraceId(answers[2]!.body));
    const sse = await call('GET', eventsPath(foreign.id), user.token, undefined, SSE);
    assert.equal(sse.status, 404);
    assert.deepEqual(withoutTraceId(sse.body), withoutTraceId(answers[0]!.body));
  });

  test('Accept neither JSON nor the event stream: 406 not_acceptable', async () => {
    const run = await runWith(ENDED);
    const answer = await call('GET', eventsPath(run.id), user.token, undefined, { Accept: 'text/html' });
    assert.equal(answer.status, 406);
    assert.equal(answer.type, 'application/problem+json');
    assert.equal(answer.body.code, 'not_acceptable');
  });

  test('a cursor of another run is 400 cursor_filter_mismatch; garbage is 400 cursor_invalid', async () => {
    const [run, another] = await Promise.all([runWith(ENDED), runWith(ENDED)]);
    const page = await call('GET', eventsPath(another.id, '?limit=1'), user.token);
    const mismatch = await call('GET', eventsPath(run.id, `?cursor=${encodeURIComponent(page.body.page.next_cursor)}`), user.token);
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.body.code, 'cursor_filter_mismatch');
    const garbage = await call('GET', eventsPath(run.id, '?cursor=garbage'), user.token);
    assert.equal(garbage.status, 400);
    assert.equal(garbage.body.code, 'cursor_invalid');
  });

  test('410 event_cursor_expired once the events after the cursor are past retention; without one, the oldest kept first', async () => {
    const run = await runWith(ENDED);
    const page = await call('GET', eventsPath(run.id, '?limit=2'), user.token);
    await expirePage(run.id, 1);
    await expirePage(run.id, 3);
    const expired = await call('GET', eventsPath(run.id, `?cursor=${encodeURIComponent(page.body.page.next_cursor)}`), user.token);
    assert.equal(expired.status, 410);
    assert.equal(expired.type, 'application/problem+json');
    assert.equal(expired.body.code, 'event_cursor_expired');
    const sse = await call('GET', eventsPath(run.id), user.token, undefined, { ...SSE, 'Last-Event-ID': runEventId(run.id, 2) });
    assert.equal(sse.status, 410);
    assert.equal(sse.body.code, 'event_cursor_expired');
    const fresh = await call('GET', eventsPath(run.id), user.token);
    assert.deepEqual(seqs(fresh.body), [4, 5, 6]);
  });
});

describe('GET /v2/runs/{id}/events as an event stream', () => {
  test('every event with id, event and data lines; the server closes after the terminal event', async () => {
    const run = await runWith(ENDED);
    const client = await listen(run.id);
    assert.equal(client.response.status, 200);
    assert.equal(client.response.headers.get('content-type'), 'text/event-stream');
    assert.equal(client.response.headers.get('vary'), 'Accept');
    await client.waitClosed();
    const events = client.events();
    assert.deepEqual(
      events.map((e) => e.json.seq),
      [1, 2, 3, 4, 5, 6],
    );
    for (const e of events) {
      assert.equal(e.id, runEventId(run.id, e.json.seq));
      assert.equal(e.json.id, e.id);
      assert.equal(e.event, e.json.type);
    }
    assert.deepEqual(events.at(-1)?.json.data, { status: 'completed' });
  });

  test('Last-Event-ID resumes after it; after the last event of an ended run, 204', async () => {
    const run = await runWith(ENDED);
    const client = await listen(run.id, { 'Last-Event-ID': runEventId(run.id, 3) });
    await client.waitClosed();
    assert.deepEqual(
      client.events().map((e) => e.json.seq),
      [4, 5, 6],
    );
    const done = await fetch(`${stack.url}${eventsPath(run.id)}`, { headers: { ...bearer(user.token), ...SSE, 'Last-Event-ID': runEventId(run.id, 6) } });
    assert.equal(done.status, 204);
  });

  test('a client connected to a running run receives the events appended while it listens, then the stream closes at the terminal event', async () => {
    const run = await runWith([[status('queued'), status('running')]]);
    const client = await listen(run.id);
    await client.waitEvents(2);
    assert.equal(client.isClosed(), false);
    await run.change([message('working'), { type: 'usage', data: { input_tokens: 3, output_tokens: 5, cost_micro_usd: 7 } }]);
    await client.waitEvents(4);
    await run.change([message('done'), status('completed')], 'completed');
    await client.waitClosed();
    assert.deepEqual(
      client.events().map((e) => [e.json.seq, e.event]),
      [
        [1, 'run.status'],
        [2, 'run.status'],
        [3, 'message'],
        [4, 'usage'],
        [5, 'message'],
        [6, 'run.status'],
      ],
    );
  });

  test('EventSource: follows the run to its end, and stops reconnecting when the reconnect is answered 204', async () => {
    const run = await runWith([[status('queued'), status('running')]]);
    const received: Array<{ type: string; id: string; seq: number }> = [];
    const source = new EventSource(`${stack.url}${eventsPath(run.id)}`, {
      fetch: (url, init) => fetch(url, { ...init, headers: { ...init.headers, ...bearer(user.token) } }),
    });
    for (const type of ['run.status', 'message']) {
      source.addEventListener(type, (event) => received.push({ type: event.type, id: event.lastEventId, seq: JSON.parse(event.data).seq }));
    }
    try {
      await vi.waitFor(() => assert.equal(received.length, 2), { timeout: 15_000, interval: 50 });
      await run.change([message('hi')]);
      await run.change([status('failed')], 'failed');
      await vi.waitFor(() => assert.equal(source.readyState, EventSource.CLOSED), { timeout: 20_000, interval: 100 });
      assert.deepEqual(
        received.map((e) => [e.seq, e.type]),
        [
          [1, 'run.status'],
          [2, 'run.status'],
          [3, 'message'],
          [4, 'run.status'],
        ],
      );
      assert.deepEqual(
        received.map((e) => e.id),
        [1, 2, 3, 4].map((seq) => runEventId(run.id, seq)),
      );
    } finally {
      source.close();
    }
  });
});
