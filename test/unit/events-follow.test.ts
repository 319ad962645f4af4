import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test, vi } from 'vitest';
import { type EventLogSource, type FollowEnd, type FollowFrame, type FollowOptions, follow, type LogHead, sse } from '#events/follow.js';
import { FOLLOW_TIMING } from '#events/log.js';

/** A payload of the fake log: a name, and whether it ends the stream. */
type P = { name: string; terminal?: boolean };

/**
 * An event log in memory: `append` allocates and writes a seq, `allocate`
 * only allocates (a writer that died, or is slow), `write` fills a seq
 * allocated earlier. `terminal` is the state's, as `head()` reads it.
 */
function fakeLog(options: { watermark?: number; terminal?: boolean; settledAfter?: number } = {}) {
  const events = new Map<number, P>();
  const log = {
    watermark: options.watermark ?? 0,
    terminal: options.terminal ?? false,
    gone: false,
    failing: undefined as Error | undefined,
    /** Snapshots read unsettled before one is settled. */
    unsettled: options.settledAfter ?? 0,
    calls: { head: 0, snapshot: 0, eventsAfter: [] as number[] },
    expired: false,
    append(data: P): number {
      log.watermark += 1;
      events.set(log.watermark, data);
      return log.watermark;
    },
    allocate(): number {
      log.watermark += 1;
      return log.watermark;
    },
    write(seq: number, data: P): void {
      events.set(seq, data);
    },
  };
  const head = (): LogHead => ({ watermark: log.watermark, terminal: log.terminal });
  const source: EventLogSource<P> = {
    head: async () => {
      log.calls.head += 1;
      return log.gone ? undefined : head();
    },
    snapshot: async (at) => {
      log.calls.snapshot += 1;
      const settled = log.unsettled === 0;
      if (!settled) log.unsettled -= 1;
      return { payloads: [{ name: 'node' }, { name: `state@${at.watermark}`, terminal: at.terminal }], settled };
    },
    eventsAfter: async (afterSeq, limit) => {
      log.calls.eventsAfter.push(afterSeq);
      if (log.failing) throw log.failing;
      const after = [...events.entries()].filter(([seq]) => seq > afterSeq).sort(([a], [b]) => a - b);
      return { events: after.slice(0, limit).map(([seq, data]) => ({ seq, data })), complete: after.length <= limit };
    },
    isTerminal: (payload) => payload.terminal === true,
    finalPayload: (at) => ({ name: `final@${at.watermark}`, terminal: true }),
    resumeNeedsSnapshot: ({ afterSeq, watermark, firstSeq }) => log.expired && afterSeq < watermark && firstSeq !== afterSeq + 1,
  };
  return { log, source, head };
}

type Seen = FollowFrame<P> & { at: number };

/** Reads every frame as it comes, with the (fake) time it came at, from the start. */
function consume(frames: AsyncGenerator<FollowFrame<P>>) {
  const started = Date.now();
  const seen: Seen[] = [];
  let finished = false;
  const done = (async () => {
    for await (const frame of frames) seen.push({ ...frame, at: Date.now() - started });
    finished = true;
  })();
  return {
    seen,
    done,
    isDone: () => finished,
    events: () => seen.filter((f) => f.kind === 'event').map((f) => (f.kind === 'event' ? [f.id, f.data.name] : [])),
    keepalives: () => seen.filter((f) => f.kind === 'keepalive'),
  };
}

const HOUR = 3_600_000;

/**
 * Follows with a consumer that reads everything. While it waits for the next
 * frame, the generator can only be stopped through its signal: `return()`
 * waits for the next frame (which is what `stop` is for).
 */
function start(source: EventLogSource<P>, head: LogHead, options: Partial<FollowOptions<LogHead>> = {}) {
  const ends: FollowEnd[] = [];
  const client = new AbortController();
  const frames = follow(source, {
    head,
    deadline: Date.now() + HOUR,
    timing: FOLLOW_TIMING,
    signal: client.signal,
    onEnd: (end) => ends.push(end),
    ...options,
  });
  const consumer = consume(frames);
  const stop = async () => {
    client.abort();
    await consumer.done;
  };
  return { frames, ends, stop, ...consumer };
}

/** Lets the fake clock run `ms`, settling every read and timer on the way. */
const run = (ms: number) => vi.advanceTimersByTimeAsync(ms);

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(new Date('2026-03-01T00:00:00.000Z'));
});
afterEach(() => {
  vi.useRealTimers();
});

describe('follow: where a stream starts', () => {
  test('the snapshot comes first, every payload with the watermark as id, then the events after it', async () => {
    const { log, source, head } = fakeLog();
    log.append({ name: 'e1' });
    log.append({ name: 'e2' });
    const stream = start(source, head());
    await run(0);
    assert.deepEqual(stream.events(), [
      [2, 'node'],
      [2, 'state@2'],
    ]);
    log.append({ name: 'e3' });
    log.append({ name: 'done', terminal: true });
    await run(1_000);
    await stream.done;
    assert.deepEqual(stream.events().slice(2), [
      [3, 'e3'],
      [4, 'done'],
    ]);
    assert.deepEqual(stream.ends, [{ reason: 'terminal', lastSeq: 4, frames: 4, skipped: 0 }]);
  });

  test('a snapshot of a finished state is all there is', async () => {
    const { log, source, head } = fakeLog({ terminal: true });
    log.append({ name: 'done', terminal: true });
    const stream = start(source, head());
    await run(0);
    await stream.done;
    assert.deepEqual(stream.events(), [
      [1, 'node'],
      [1, 'state@1'],
    ]);
    assert.deepEqual(log.calls.eventsAfter, [], 'the log is not read');
    assert.equal(stream.ends[0]!.reason, 'terminal');
  });

  test('a state caught mid-change is read again until it settles, for up to the grace period', async () => {
    const { log, source, head } = fakeLog({ settledAfter: 2 });
    log.append({ name: 'e1' });
    const stream = start(source, head());
    await run(FOLLOW_TIMING.pollMinMs);
    assert.deepEqual(stream.events(), [], 'nothing sent while unsettled');
    await run(FOLLOW_TIMING.pollMinMs);
    assert.equal(log.calls.snapshot, 3);
    assert.equal(log.calls.head, 2, 'each retry reads the state again');
    assert.deepEqual(stream.events(), [
      [1, 'node'],
      [1, 'state@1'],
    ]);
    await stream.stop();
  });

  test('Last-Event-ID: only the events after it, nothing sent twice, no snapshot', async () => {
    const { log, source, head } = fakeLog();
    for (const name of ['e1', 'e2', 'e3']) log.append({ name });
    const stream = start(source, head(), { after: 1 });
    await run(0);
    assert.deepEqual(stream.events(), [
      [2, 'e2'],
      [3, 'e3'],
    ]);
    assert.equal(log.calls.snapshot, 0);
    assert.deepEqual(log.calls.eventsAfter, [1]);
    await stream.stop();
    assert.equal(stream.ends[0]!.lastSeq, 3);
  });

  test('a resume into events that may have expired gets a snapshot instead', async () => {
    const { log, source, head } = fakeLog();
    log.allocate();
    log.allocate();
    log.append({ name: 'e3' });
    log.expired = true;
    const stream = start(source, head(), { after: 0 });
    await run(0);
    assert.deepEqual(stream.events(), [
      [3, 'node'],
      [3, 'state@3'],
    ]);
    log.append({ name: 'e4' });
    await run(FOLLOW_TIMING.pollMaxMs);
    assert.deepEqual(stream.events().at(-1), [4, 'e4']);
    await stream.stop();
  });
});

describe('follow: ordered delivery', () => {
  test('a missing seq holds later events back for the grace period, then is skipped', async () => {
    const { log, source, head } = fakeLog();
    log.append({ name: 'e1' });
    const hole = log.allocate();
    log.append({ name: 'e3' });
    const stream = start(source, head(), { after: 0 });
    await run(FOLLOW_TIMING.gapGraceMs - 1);
    assert.deepEqual(stream.events(), [[1, 'e1']]);
    await run(FOLLOW_TIMING.pollMaxMs + 1);
    assert.deepEqual(stream.events(), [
      [1, 'e1'],
      [3, 'e3'],
    ]);
    const e3 = stream.seen.find((f) => f.kind === 'event' && f.id === 3)!;
    assert.ok(e3.at >= FOLLOW_TIMING.gapGraceMs && e3.at <= FOLLOW_TIMING.gapGraceMs + FOLLOW_TIMING.pollMaxMs, `held for the grace period: ${e3.at}`);
    log.write(hole, { name: 'too late' });
    log.append({ name: 'done', terminal: true });
    await run(FOLLOW_TIMING.pollMaxMs);
    await stream.done;
    assert.deepEqual(stream.events().at(-1), [4, 'done']);
    assert.equal(stream.ends[0]!.skipped, 1);
  });

  test('a slow writer filling its hole within the grace period is delivered in order, without the wait', async () => {
    const { log, source, head } = fakeLog();
    const stream = start(source, head(), { after: 0 });
    const slow = log.allocate();
    log.append({ name: 'e2' });
    await run(600);
    assert.deepEqual(stream.events(), []);
    log.write(slow, { name: 'e1' });
    await run(FOLLOW_TIMING.pollMaxMs);
    assert.deepEqual(stream.events(), [
      [1, 'e1'],
      [2, 'e2'],
    ]);
    await stream.stop();
    assert.equal(stream.ends[0]!.skipped, 0);
  });

  test('a long log is read page after page without waiting', async () => {
    const { log, source, head } = fakeLog();
    for (let i = 1; i <= 250; i++) log.append({ name: `e${i}` });
    const stream = start(source, head(), { after: 0 });
    await run(0);
    assert.equal(stream.events().length, 250);
    assert.deepEqual(log.calls.eventsAfter, [0, 100, 200]);
    await stream.stop();
  });
});

describe('follow: the end', () => {
  test('a finished state without its terminal event: confirmed by a fresh read after the grace period, then sent', async () => {
    // Resumed past the terminal event; a late event was logged after it.
    const { log, source, head } = fakeLog({ terminal: true });
    log.append({ name: 'done', terminal: true });
    log.append({ name: 'late' });
    const stream = start(source, head(), { after: 1 });
    await run(0);
    assert.deepEqual(stream.events(), [[2, 'late']]);
    await run(FOLLOW_TIMING.gapGraceMs - FOLLOW_TIMING.pollMaxMs);
    assert.equal(stream.isDone(), false, 'the writers get the grace period to append their last events');
    await run(FOLLOW_TIMING.pollMaxMs * 2);
    await stream.done;
    assert.deepEqual(stream.events(), [
      [2, 'late'],
      [2, 'final@2'],
    ]);
    assert.equal(stream.ends[0]!.reason, 'terminal');
  });

  test('a confirmation read that finds more allocated events waits for them first', async () => {
    const { log, source, head } = fakeLog({ terminal: true });
    log.append({ name: 'done', terminal: true });
    const stream = start(source, head(), { after: 1 });
    await run(FOLLOW_TIMING.gapGraceMs - 100);
    const slow = log.allocate(); // a writer still finishing when the state was confirmed
    await run(1_100);
    assert.equal(log.calls.head, 1, 'confirmed once, and found seq 2 allocated');
    log.write(slow, { name: 'later' });
    await run(FOLLOW_TIMING.pollMaxMs);
    assert.deepEqual(stream.events(), [[2, 'later']]);
    assert.equal(stream.isDone(), false, 'a new grace period from the confirmation read');
    await run(FOLLOW_TIMING.gapGraceMs);
    await stream.done;
    assert.deepEqual(stream.events().at(-1), [2, 'final@2']);
    assert.equal(stream.ends[0]!.skipped, 0);
  });

  test('a state that goes on again before its end is confirmed (a redriven request) is followed on, to its new end', async () => {
    const { log, source, head } = fakeLog({ terminal: true });
    log.append({ name: 'failed', terminal: true });
    const stream = start(source, head(), { after: 1 });
    await run(FOLLOW_TIMING.gapGraceMs - 100);
    log.terminal = false; // redriven: over no more, and nothing logged yet
    await run(FOLLOW_TIMING.pollMaxMs * 2);
    assert.equal(log.calls.head, 1, 'the confirmation read found it going on');
    assert.equal(stream.isDone(), false, 'no end sent for a state that is not over');
    log.append({ name: 'again' });
    log.append({ name: 'completed', terminal: true });
    log.terminal = true;
    await run(FOLLOW_TIMING.pollMaxMs * 2);
    await stream.done;
    assert.deepEqual(stream.events(), [
      [2, 'again'],
      [3, 'completed'],
    ]);
    assert.equal(stream.ends[0]!.reason, 'terminal');
  });

  test('idle, the state is re-read every idleCheckMs; a state that ended without its event is found and sent', async () => {
    const { log, source, head } = fakeLog();
    const stream = start(source, head(), { after: 0 });
    await run(FOLLOW_TIMING.idleCheckMs - FOLLOW_TIMING.pollMaxMs);
    assert.equal(log.calls.head, 0);
    await run(FOLLOW_TIMING.pollMaxMs * 2);
    assert.equal(log.calls.head, 1, 'one re-read after idleCheckMs');
    log.terminal = true; // the request stopped, its event never written
    await run(FOLLOW_TIMING.idleCheckMs);
    assert.equal(log.calls.head, 2);
    assert.equal(stream.isDone(), false);
    await run(FOLLOW_TIMING.gapGraceMs + FOLLOW_TIMING.pollMaxMs * 2);
    await stream.done;
    assert.deepEqual(stream.events(), [[0, 'final@0']]);
    const polls = log.calls.eventsAfter.length;
    const seconds = (2 * FOLLOW_TIMING.idleCheckMs + FOLLOW_TIMING.gapGraceMs) / 1000;
    assert.ok(polls <= seconds * 1.1, `about one read per second while idle: ${polls} in ${seconds} s`);
  });

  test('a state that is gone ends the stream', async () => {
    const { log, source, head } = fakeLog();
    const stream = start(source, head(), { after: 0 });
    log.gone = true;
    await run(FOLLOW_TIMING.idleCheckMs + FOLLOW_TIMING.pollMaxMs);
    await stream.done;
    assert.equal(stream.ends[0]!.reason, 'gone');
  });

  test('the deadline ends the stream cleanly, even while it waits', async () => {
    const { log, source, head } = fakeLog();
    const stream = start(source, head(), { deadline: Date.now() + 2_000 });
    await run(500);
    log.append({ name: 'e1' });
    await run(1_499);
    assert.equal(stream.isDone(), false);
    await run(1);
    await stream.done;
    assert.deepEqual(stream.events(), [
      [0, 'node'],
      [0, 'state@0'],
      [1, 'e1'],
    ]);
    assert.deepEqual(stream.ends, [{ reason: 'deadline', lastSeq: 1, frames: 3, skipped: 0 }]);
  });

  test('a failing read ends the stream cleanly, with the error for the log', async () => {
    const { log, source, head } = fakeLog();
    const stream = start(source, head(), { after: 0 });
    log.failing = new Error('throttled');
    await run(FOLLOW_TIMING.pollMaxMs);
    await stream.done;
    assert.equal(stream.ends[0]!.reason, 'error');
    assert.equal((stream.ends[0]!.error as Error).message, 'throttled');
  });
});

describe('follow: keepalives, back-pressure and the consumer', () => {
  test('keepalives every keepaliveMs from the start, whatever else is sent, without ids', async () => {
    const { log, source, head } = fakeLog();
    const stream = start(source, head());
    await run(1_000);
    log.append({ name: 'e1' });
    await run(9_000);
    assert.deepEqual(
      stream.keepalives().map((f) => f.at),
      [3_000, 6_000, 9_000],
    );
    await stream.stop();
  });

  test('nothing is read while the consumer does not ask, and keepalives do not pile up', async () => {
    const { log, source, head } = fakeLog();
    const ends: FollowEnd[] = [];
    const frames = follow(source, { head: head(), after: 0, deadline: Date.now() + HOUR, timing: FOLLOW_TIMING, onEnd: (end) => ends.push(end) });
    log.append({ name: 'e1' });
    assert.deepEqual((await frames.next()).value, { kind: 'event', id: 1, data: { name: 'e1' } });
    const reads = log.calls.eventsAfter.length;
    await run(60_000); // the client reads nothing for a minute
    assert.equal(log.calls.eventsAfter.length, reads, 'no reads while the consumer is not asking');
    const next = frames.next();
    await run(0);
    assert.deepEqual(await next, { done: false, value: { kind: 'keepalive' } });
    const after = frames.next();
    await run(FOLLOW_TIMING.pollMaxMs);
    log.append({ name: 'e2' });
    await run(FOLLOW_TIMING.pollMaxMs);
    assert.deepEqual(await after, { done: false, value: { kind: 'event', id: 2, data: { name: 'e2' } } }, 'one keepalive, then on with the log');
    await frames.return();
    assert.equal(ends[0]!.reason, 'client_closed');
  });

  test('the consumer stopping early (return()) ends the stream at once and reports it', async () => {
    const { log, source, head } = fakeLog();
    log.append({ name: 'e1' });
    const ends: FollowEnd[] = [];
    const frames = follow(source, { head: head(), deadline: Date.now() + HOUR, timing: FOLLOW_TIMING, onEnd: (end) => ends.push(end) });
    assert.equal((await frames.next()).done, false);
    assert.deepEqual(await frames.return(), { done: true, value: undefined });
    assert.deepEqual(ends, [{ reason: 'client_closed', lastSeq: 1, frames: 1, skipped: 0 }]);
    assert.equal((await frames.next()).done, true);
  });

  test('the signal ends a waiting stream at once, without waiting for the timer', async () => {
    const { source, head } = fakeLog();
    const stop = new AbortController();
    const stream = start(source, head(), { after: 0, signal: stop.signal });
    await run(100);
    assert.equal(vi.getTimerCount() > 0, true, 'it waits on a timer');
    stop.abort();
    await stream.done; // no time passes
    assert.equal(stream.ends[0]!.reason, 'client_closed');
    assert.equal(vi.getTimerCount(), 0, 'and leaves no timer behind');
  });
});

describe('sse', () => {
  test('frames become SSE text: id and one JSON data line, or the keepalive line', async () => {
    async function* frames(): AsyncGenerator<FollowFrame<P>> {
      yield { kind: 'event', id: 7, data: { name: 'x\ny' } };
      yield { kind: 'keepalive' };
    }
    const text: string[] = [];
    for await (const chunk of sse(frames())) text.push(chunk);
    assert.deepEqual(text, ['id: 7\ndata: {"name":"x\\ny"}\n\n', 'data: keepalive\n\n']);
  });
});
