import assert from 'node:assert/strict';
import { GetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { describe, test } from 'vitest';
import { eventPageItem, pageEvents } from '#events/pages.js';
import { CursorFilterMismatchError, CursorInvalidError, DomainError, NotAcceptableError, NotFoundError } from '#platform/errors.js';
import { encodeCursor } from '#platform/http/cursor.js';
import { STATUS_OF } from '#platform/http/problem.js';
import { keys } from '#platform/table/keys.js';
import { runEventId, runEventLog } from '#runs/events.js';
import type { Run, RunEventData } from '#runs/model.js';
import { EventCursorExpiredError, eventsMediaType, runEventsPage } from '#runs/run-events.js';
import { KEEPALIVE_COMMENT, RUN_EVENTS_TIMING, runEventsStream } from '#runs/run-events-stream.js';
import { mockedDynamoDb } from '../helpers/dynamodb-mock.js';
import { runFixture } from '../helpers/run-fixture.js';

const ACCOUNT = 'acc-1';
const RUN_ID = 'run_000000001AAAAAAAAAAAAAAAA';
const OTHER_RUN_ID = 'run_000000002BBBBBBBBBBBBBBBB';
const KEY = { load: async () => Buffer.alloc(32, 7) };

const runOf = (fields: Partial<Run> = {}): Run =>
  runFixture({
    id: RUN_ID,
    account_id: ACCOUNT,
    ...fields,
  });

const message = (text: string): RunEventData => ({ type: 'message', data: { role: 'assistant', text } });
const status = (value: Run['status']): RunEventData => ({ type: 'run.status', data: { status: value } });
type Item = Record<string, unknown> & { pk: string; sk: string; ttl: number };

/**
 * The run item and its event pages in a mocked table. Queries are answered
 * as DynamoDB does: the key range, the direction, `Limit` counting items
 * before the filter, then `ttl > :now`. Every Query is recorded with the
 * number of items it read.
 */
function fakeRun(fields: Partial<Run> = {}) {
  const { mock, table } = mockedDynamoDb();
  const log = runEventLog(table, RUN_ID);
  const state = { run: runOf(fields), pages: [] as Item[], queries: [] as Array<{ input: QueryCommandInput; read: number }>, tailReads: 0 };
  const append = (...events: RunEventData[]) => {
    state.pages.push(eventPageItem(log, state.run.event_seq + 1, events) as Item);
    state.run = { ...state.run, event_seq: state.run.event_seq + events.length };
  };
  const expire = (firstSeq: number) => {
    const page = state.pages.find((p) => p.sk === keys.runEvent(RUN_ID, firstSeq).sk);
    assert.ok(page, `a page starts at ${firstSeq}`);
    page.ttl = Math.floor(Date.now() / 1000) - 60;
  };
  mock.on(GetCommand).callsFake((input: { Key: { pk: string } }) => ({
    Item: input.Key.pk === keys.run(RUN_ID).pk ? { ...keys.run(RUN_ID), entity: 'run', ...state.run } : undefined,
  }));
  mock.on(QueryCommand).callsFake((input: QueryCommandInput) => {
    const values = input.ExpressionAttributeValues as Record<string, string | number>;
    const inRange = state.pages
      .filter((p) => p.pk === values[':pk'] && p.sk >= values[':from']! && p.sk <= values[':to']!)
      .sort((a, b) => a.sk.localeCompare(b.sk));
    if (input.ScanIndexForward === false) inRange.reverse();
    const read = inRange.slice(0, input.Limit ?? inRange.length);
    // The read of the log's end (a running run's deltas may follow its event_seq) is counted apart from the pages' reads.
    if (input.ProjectionExpression === 'last_seq') state.tailReads++;
    else state.queries.push({ input, read: read.length });
    const items = input.FilterExpression ? read.filter((p) => p.ttl > Number(values[':now'])) : read;
    const last = read.at(-1);
    return { Items: items, LastEvaluatedKey: read.length < inRange.length && last ? { pk: last.pk, sk: last.sk } : undefined, ConsumedCapacity: {} };
  });
  return { table, state, append, expire, deps: { table, serviceKey: KEY } };
}

const seqsOf = (page: { data: Array<{ seq: number }> }) => page.data.map((e) => e.seq);

describe('a page of run events', () => {
  test('pages in seq order with limit and cursor; a page cut inside a stored page goes on from that page in one Query', async () => {
    const fake = fakeRun();
    fake.append(status('queued'));
    fake.append(status('running'), message('a'));
    fake.append(message('b'), message('c'), message('d'));
    const first = await runEventsPage(fake.deps, ACCOUNT, RUN_ID, { limit: '2' });
    assert.deepEqual(seqsOf(first), [1, 2]);
    assert.equal(first.page.has_more, true);
    assert.deepEqual(first.data[0], {
      id: runEventId(RUN_ID, 1),
      run_id: RUN_ID,
      seq: 1,
      type: 'run.status',
      created_at: pageEvents(fake.state.pages[0]!)[0]!.created_at,
      data: { status: 'queued' },
    });
    fake.state.queries.length = 0;
    const second = await runEventsPage(fake.deps, ACCOUNT, RUN_ID, { limit: '2', cursor: first.page.next_cursor! });
    assert.deepEqual(seqsOf(second), [3, 4]);
    // Seq 2 is inside the page keyed 2: the next read starts there, no look back.
    assert.equal(fake.state.queries.length, 1);
    const values = fake.state.queries[0]!.input.ExpressionAttributeValues!;
    assert.equal(values[':from'], keys.runEvent(RUN_ID, 2).sk);
    assert.equal(values[':to'], keys.runEvent(RUN_ID, 4).sk);
    const third = await runEventsPage(fake.deps, ACCOUNT, RUN_ID, { limit: '2', cursor: second.page.next_cursor! });
    assert.deepEqual(seqsOf(third), [5, 6]);
    assert.equal(third.page.has_more, false);
    // The run goes on: a cursor to ask for later events with.
    assert.ok(third.page.next_cursor);
    const empty = await runEventsPage(fake.deps, ACCOUNT, RUN_ID, { cursor: third.page.next_cursor! });
    assert.deepEqual(seqsOf(empty), []);
    fake.append(status('completed'));
    fake.state.run.status = 'completed';
    const last = await runEventsPage(fake.deps, ACCOUNT, RUN_ID, { cursor: empty.page.next_cursor! });
    assert.deepEqual(seqsOf(last), [7]);
    assert.deepEqual(last.page, { has_more: false, next_cursor: null });
  });

  test('while the run runs, its deltas past event_seq are listed too: the log’s end is read from its newest page', async () => {
    const fake = fakeRun();
    fake.append(status('queued'));
    fake.append(status('running'));
    // Deltas are pages of the log alone: the run's event_seq stays at 2.
    fake.state.pages.push(eventPageItem(runEventLog(fake.table, RUN_ID), 3, [message('a'), message('b')]) as Item);
    const first = await runEventsPage(fake.deps, ACCOUNT, RUN_ID, { limit: '3' });
    assert.deepEqual(seqsOf(first), [1, 2, 3]);
    assert.equal(first.page.has_more, true, 'seq 4 is past event_seq, and there');
    const second = await runEventsPage(fake.deps, ACCOUNT, RUN_ID, { limit: '3', cursor: first.page.next_cursor! });
    assert.deepEqual(seqsOf(second), [4]);
    assert.equal(second.page.has_more, false);
    assert.equal(fake.state.tailReads, 2);
    fake.state.run.status = 'waiting';
    fake.state.run.event_seq = 4;
    await runEventsPage(fake.deps, ACCOUNT, RUN_ID, {});
    assert.equal(fake.state.tailReads, 2, 'a run that is not running has no deltas past its event_seq: nothing more read');
  });

  test('a page of 100 is one Query reading about 100 events, wherever it is in a run of 10 000', async () => {
    const fake = fakeRun();
    for (let seq = 1; seq <= 10_000; seq += 3) fake.append(...[message('x'), message('y'), message('z')].slice(0, Math.min(3, 10_001 - seq)));
    assert.equal(fake.state.run.event_seq, 10_000);
    let cursor: string | undefined;
    let next = 1;
    do {
      fake.state.queries.length = 0;
      const page = await runEventsPage(fake.deps, ACCOUNT, RUN_ID, { ...(cursor ? { cursor } : {}) });
      assert.equal(page.data[0]?.seq, next);
      assert.equal(page.data.length, 100);
      assert.equal(fake.state.queries.length, 1, `one Query for the page from ${next}`);
      assert.ok(fake.state.queries[0]!.read <= 35, `${fake.state.queries[0]!.read} pages read for the page from ${next}`);
      next += 100;
      cursor = page.page.has_more ? page.page.next_cursor! : undefined;
    } while (cursor);
    assert.equal(next, 10_001);
  });

  test('limit outside 1 to 500 is 400 validation_failed naming limit in the query (the specification’s 400 table)', async () => {
    const fake = fakeRun();
    fake.append(status('queued'));
    for (const limit of ['0', '501', 'x', '1.5', '']) {
      await assert.rejects(runEventsPage(fake.deps, ACCOUNT, RUN_ID, { limit }), (e: unknown) => {
        assert.ok(e instanceof DomainError, String(limit));
        assert.equal(STATUS_OF[e.kind], 400);
        assert.equal(e.code, 'validation_failed');
        assert.deepEqual(
          e.options.errors?.map(({ name, location }) => ({ name, location })),
          [{ name: 'limit', location: 'query' }],
        );
        return true;
      });
    }
    assert.equal((await runEventsPage(fake.deps, ACCOUNT, RUN_ID, { limit: '500' })).data.length, 1);
  });

  test('cursors: garbage, another run’s, and one past the run’s last event', async () => {
    const fake = fakeRun();
    fake.append(status('queued'), status('running'));
    const foreign = await encodeCursor('run-events', { run_id: OTHER_RUN_ID }, { s: 1, f: 0 }, KEY);
    await assert.rejects(runEventsPage(fake.deps, ACCOUNT, RUN_ID, { cursor: 'garbage' }), CursorInvalidError);
    await assert.rejects(runEventsPage(fake.deps, ACCOUNT, RUN_ID, { cursor: '' }), CursorInvalidError);
    await assert.rejects(runEventsPage(fake.deps, ACCOUNT, RUN_ID, { cursor: foreign }), CursorFilterMismatchError);
    const ahead = await encodeCursor('run-events', { run_id: RUN_ID }, { s: 9, f: 9 }, KEY);
    await assert.rejects(runEventsPage(fake.deps, ACCOUNT, RUN_ID, { cursor: ahead }), CursorInvalidError);
    const inverted = await encodeCursor('run-events', { run_id: RUN_ID }, { s: 1, f: 2 }, KEY);
    await assert.rejects(runEventsPage(fake.deps, ACCOUNT, RUN_ID, { cursor: inverted }), CursorInvalidError);
  });

  test('410 event_cursor_expired when the events after the cursor are past retention', async () => {
    const fake = fakeRun();
    fake.append(status('queued'));
    fake.append(status('running'), message('a'));
    fake.append(message('b'));
    const aligned = await runEventsPage(fake.deps, ACCOUNT, RUN_ID, { limit: '1' });
    const inside = await runEventsPage(fake.deps, ACCOUNT, RUN_ID, { limit: '2' });
    fake.expire(1);
    fake.expire(2);
    for (const cursor of [aligned.page.next_cursor!, inside.page.next_cursor!]) {
      await assert.rejects(runEventsPage(fake.deps, ACCOUNT, RUN_ID, { cursor }), (e: unknown) => {
        assert.ok(e instanceof EventCursorExpiredError);
        assert.equal(STATUS_OF[e.kind], 410);
        assert.equal(e.code, 'event_cursor_expired');
        return true;
      });
    }
  });

  test('without a cursor, a run whose first events expired starts at the oldest kept', async () => {
    const fake = fakeRun();
    for (let i = 1; i <= 10; i++) fake.append(message(`m${i}`));
    for (const seq of [1, 2, 3]) fake.expire(seq);
    assert.deepEqual(seqsOf(await runEventsPage(fake.deps, ACCOUNT, RUN_ID, { limit: '5' })), [4, 5, 6, 7, 8]);
  });

  test('past a first page that expired whole, the oldest kept is found in a few Queries; nothing kept is an empty last page', async () => {
    const fake = fakeRun();
    for (let i = 1; i <= 1000; i++) fake.append(message(`m${i}`));
    for (let seq = 1; seq <= 600; seq++) fake.expire(seq);
    fake.state.queries.length = 0;
    const page = await runEventsPage(fake.deps, ACCOUNT, RUN_ID, { limit: '100' });
    assert.deepEqual(
      seqsOf(page),
      Array.from({ length: 100 }, (_, i) => 601 + i),
    );
    assert.ok(fake.state.queries.length <= 25, `${fake.state.queries.length} Queries`);
    const next = await runEventsPage(fake.deps, ACCOUNT, RUN_ID, { limit: '100', cursor: page.page.next_cursor! });
    assert.equal(next.data[0]?.seq, 701);

    for (let seq = 601; seq <= 1000; seq++) fake.expire(seq);
    fake.state.run.status = 'completed';
    assert.deepEqual(await runEventsPage(fake.deps, ACCOUNT, RUN_ID, {}), { data: [], page: { has_more: false, next_cursor: null } });
  });

  test('an unknown, malformed or other account’s run is the same 404', async () => {
    const fake = fakeRun();
    fake.append(status('queued'));
    const answers: string[] = [];
    for (const [account, run] of [
      ['acc-2', RUN_ID],
      [ACCOUNT, OTHER_RUN_ID],
      [ACCOUNT, 'nope'],
    ] as const) {
      await assert.rejects(runEventsPage(fake.deps, account, run, {}), (e: unknown) => {
        assert.ok(e instanceof NotFoundError);
        answers.push(`${e.code} ${e.detail}`);
        return true;
      });
    }
    assert.equal(new Set(answers).size, 1);
  });
});

describe('Accept', () => {
  test('JSON by default and on a tie; the stream when preferred; 406 for neither', () => {
    const cases: Array<[string | undefined, string]> = [
      [undefined, 'json'],
      ['', 'json'],
      ['*/*', 'json'],
      ['application/json', 'json'],
      ['application/*', 'json'],
      ['text/event-stream', 'sse'],
      ['text/*', 'sse'],
      ['application/json, text/event-stream', 'json'],
      ['application/json;q=0.5, text/event-stream', 'sse'],
      ['Text/Event-Stream; charset=utf-8', 'sse'],
      ['text/html, */*;q=0.1', 'json'],
      ['application/json;q=0, */*', 'sse'],
    ];
    for (const [accept, expected] of cases) assert.equal(eventsMediaType(accept), expected, String(accept));
    for (const accept of ['text/html', 'application/xml, image/*', 'application/json;q=0, text/event-stream;q=0']) {
      assert.throws(
        () => eventsMediaType(accept),
        (e: unknown) => e instanceof NotAcceptableError && STATUS_OF[e.kind] === 406 && e.code === 'not_acceptable',
      );
    }
  });
});

const FAST = { ...RUN_EVENTS_TIMING, keepaliveMs: 60, gapGraceMs: 100, pollMinMs: 5, pollMaxMs: 20, idleCheckMs: 200, deadlineMarginMs: 0 };
const streamDeps = (fake: ReturnType<typeof fakeRun>, maxSeconds = 10) => ({ table: fake.table, maxSeconds: () => maxSeconds, timing: FAST });

interface Message {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}
/** The stream's text as SSE messages. */
function messages(text: string): Message[] {
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      const message: Message = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) message.comment = line.slice(1).trim();
        else {
          const [field, ...rest] = line.split(': ');
          message[field as 'id' | 'event' | 'data'] = rest.join(': ');
        }
      }
      return message;
    });
}

/** Opens the stream and reads it to its end (or `onFrame` stops it). */
async function readStream(fake: ReturnType<typeof fakeRun>, lastEventId?: string, onFrame?: (text: string) => Promise<void> | void) {
  const opened = await runEventsStream(streamDeps(fake), ACCOUNT, RUN_ID, lastEventId, 60_000);
  if (opened.kind === 'caught_up') return opened;
  let text = '';
  for await (const frame of opened.frames(new AbortController().signal)) {
    text += frame;
    await onFrame?.(frame);
  }
  return { kind: 'stream' as const, text, messages: messages(text) };
}
const eventsOf = (read: Awaited<ReturnType<typeof readStream>>) =>
  read.kind === 'stream'
    ? read.messages.filter((m) => m.id).map((m) => ({ ...m, json: JSON.parse(m.data!) as { seq: number; id: string; type: string } }))
    : [];

describe('the event stream', () => {
  const ended = () => {
    const fake = fakeRun();
    fake.append(status('queued'));
    fake.append(status('running'), message('a'));
    fake.append(message('b'), status('completed'));
    fake.state.run.status = 'completed';
    return fake;
  };

  test('sends every event with id, event and data lines, and closes after the terminal event', async () => {
    const read = await readStream(ended());
    const events = eventsOf(read);
    assert.deepEqual(
      events.map((e) => e.json.seq),
      [1, 2, 3, 4, 5],
    );
    for (const e of events) {
      assert.equal(e.id, e.json.id);
      assert.equal(e.id, runEventId(RUN_ID, e.json.seq));
      assert.equal(e.event, e.json.type);
    }
    assert.equal(events.at(-1)?.event, 'run.status');
  });

  test('resumes after Last-Event-ID; ignores another run’s id; a client with the last event of an ended run gets caught_up', async () => {
    const fake = ended();
    assert.deepEqual(
      eventsOf(await readStream(fake, runEventId(RUN_ID, 2))).map((e) => e.json.seq),
      [3, 4, 5],
    );
    assert.deepEqual(
      eventsOf(await readStream(fake, runEventId(OTHER_RUN_ID, 2))).map((e) => e.json.seq),
      [1, 2, 3, 4, 5],
    );
    assert.deepEqual(await readStream(fake, runEventId(RUN_ID, 5)), { kind: 'caught_up' });
  });

  test('a Last-Event-ID whose following events expired is refused before the stream opens', async () => {
    const fake = ended();
    fake.expire(2);
    await assert.rejects(readStream(fake, runEventId(RUN_ID, 1)), EventCursorExpiredError);
    // Without one, the stream starts at the oldest kept.
    fake.expire(1);
    assert.deepEqual(
      eventsOf(await readStream(fake)).map((e) => e.json.seq),
      [4, 5],
    );
  });

  test('follows a running run: events appended while connected arrive, keepalives are comments, the terminal event closes it', async () => {
    const fake = fakeRun();
    fake.append(status('queued'), status('running'));
    let appended = false;
    const read = await readStream(fake, undefined, async (frame) => {
      if (frame === KEEPALIVE_COMMENT && !appended) {
        appended = true;
        fake.append(message('later'));
        await new Promise((r) => setTimeout(r, 30));
        fake.append(status('failed'));
        fake.state.run.status = 'failed';
      }
    });
    assert.ok(appended, 'a keepalive came while the run was idle');
    assert.ok(read.kind === 'stream' && read.messages.some((m) => m.comment === 'keepalive'));
    assert.deepEqual(
      eventsOf(read).map((e) => [e.json.seq, e.json.type]),
      [
        [1, 'run.status'],
        [2, 'run.status'],
        [3, 'message'],
        [4, 'run.status'],
      ],
    );
  });

  test('another account’s run is 404 before anything is streamed', async () => {
    const fake = ended();
    await assert.rejects(
      runEventsStream(streamDeps(fake), 'acc-2', RUN_ID, undefined, 60_000),
      (e: unknown) => e instanceof DomainError && STATUS_OF[e.kind] === 404,
    );
  });
});
