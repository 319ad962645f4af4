import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test, vi } from 'vitest';
import { PROVIDERS } from '#models/registry.js';
import { sleep } from '#models/streaming.js';
import { type LoopDeps, runLoop } from '#runs/agent-loop.js';
import { DELTA_INTERVAL_MS, type Delta, DeltaCoalescer, deltaEvent, loggedText, TurnStream, type TurnStreamRuns, TurnText, textAfter } from '#runs/deltas.js';
import { RunStopped } from '#runs/lease.js';
import type { Run, RunEventData } from '#runs/model.js';
import type { RunChange, Runs } from '#runs/run-changes.js';
import { runFixture } from '../helpers/run-fixture.js';

/**
 * Token deltas (lib/runs/deltas.ts): the coalescer on fake timers, the
 * replay rule of TurnText, and a turn's stream on runs in memory that apply
 * a change only under the conditions the table puts on it.
 */

describe('DeltaCoalescer', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A coalescer whose writes take `writeMs` each; every write with the time it began. */
  function coalescer(writeMs = 10) {
    const writes: Array<{ at: number; delta: Delta }> = [];
    const failures: unknown[] = [];
    const start = Date.now();
    let fail: unknown;
    const c = new DeltaCoalescer(
      async (delta) => {
        writes.push({ at: Date.now() - start, delta });
        await new Promise((resolve) => setTimeout(resolve, writeMs));
        if (fail !== undefined) throw fail;
      },
      (error) => failures.push(error),
    );
    return { c, writes, failures, failWith: (error: unknown) => (fail = error) };
  }

  test('pieces every 20 ms for 2 s are written at most every 250 ms, in order, and what is left comes back from drain', async () => {
    const { c, writes } = coalescer();
    const pieces = Array.from({ length: 100 }, (_, i) => `w${i} `);
    for (const piece of pieces) {
      c.push({ text: piece });
      await vi.advanceTimersByTimeAsync(20);
    }
    // A write may be in flight: drain waits for it.
    const drained = c.drain();
    await vi.advanceTimersByTimeAsync(50);
    const rest = await drained;
    assert.ok(writes.length >= 8 && writes.length <= 9, `${writes.length} writes in 2 s`);
    for (const [i, w] of writes.entries()) if (i > 0) assert.ok(w.at - writes[i - 1]!.at >= DELTA_INTERVAL_MS, `write ${i} at ${w.at}`);
    assert.deepEqual(writes[0], { at: 0, delta: { text: 'w0 ' } }, 'the first piece is written at once');
    assert.equal([...writes.map((w) => w.delta.text), rest?.text ?? ''].join(''), pieces.join(''));
  });

  test('an answer produced at once is never written: drained in the same turn of the event loop, it all comes back', async () => {
    const { c, writes } = coalescer();
    c.push({ text: 'Hello ' });
    c.push({ text: 'world' });
    assert.deepEqual(await c.drain(), { text: 'Hello world' });
    await vi.advanceTimersByTimeAsync(1_000);
    assert.equal(writes.length, 0, 'nothing, then or after drain');
  });

  test('pieces that come within 250 ms of a write wait for the interval, and what is left when the answer is done comes back', async () => {
    const { c, writes } = coalescer();
    c.push({ text: 'Hello ' });
    await vi.advanceTimersByTimeAsync(100);
    c.push({ text: 'wor' });
    await vi.advanceTimersByTimeAsync(100);
    c.push({ text: 'ld' });
    assert.deepEqual(
      writes.map((w) => [w.at, w.delta.text]),
      [[0, 'Hello ']],
    );
    assert.deepEqual(await c.drain(), { text: 'world' });
  });

  test('a piece that comes after a silence longer than the interval is written at once', async () => {
    const { c, writes } = coalescer();
    await vi.advanceTimersByTimeAsync(600);
    c.push({ text: 'late ' });
    await vi.advanceTimersByTimeAsync(0);
    assert.deepEqual(
      writes.map((w) => [w.at, w.delta.text]),
      [[600, 'late ']],
    );
    await vi.advanceTimersByTimeAsync(500);
    c.push({ text: 'again' });
    await vi.advanceTimersByTimeAsync(0);
    assert.deepEqual(
      writes.map((w) => w.at),
      [600, 1100],
    );
  });

  test('one write at a time: a slow write holds the next back until it is done', async () => {
    const { c, writes } = coalescer(600);
    await vi.advanceTimersByTimeAsync(300);
    c.push({ text: 'a' });
    await vi.advanceTimersByTimeAsync(50);
    c.push({ text: 'b' });
    c.push({ text: 'c' });
    await vi.advanceTimersByTimeAsync(1_000);
    assert.deepEqual(
      writes.map((w) => w.delta.text),
      ['a', 'bc'],
    );
    assert.equal(writes[0]!.at, 300);
    assert.ok(writes[1]!.at >= 900 && writes[1]!.at < 910, `the second write began at ${writes[1]!.at}, once the first was done`);
    const drained = c.drain();
    await vi.advanceTimersByTimeAsync(600);
    assert.equal(await drained, undefined);
  });

  test('a restart discards what is buffered before it and takes what follows', async () => {
    const { c } = coalescer();
    c.push({ text: 'old ' });
    c.push({ text: 'new', restart: true });
    c.push({ text: ' more' });
    assert.deepEqual(await c.drain(), { text: 'new more', restart: true });
  });

  test('a write that fails stops it: the failure is told once, nothing more is written, and drain throws it', async () => {
    const { c, writes, failures, failWith } = coalescer();
    const stopped = new RunStopped('ended');
    failWith(stopped);
    c.push({ text: 'a' });
    await vi.advanceTimersByTimeAsync(300);
    c.push({ text: 'b' });
    await vi.advanceTimersByTimeAsync(1_000);
    assert.equal(writes.length, 1);
    assert.deepEqual(failures, [stopped]);
    await assert.rejects(c.drain(), (e) => e === stopped);
  });
});

describe('TurnText: the replay rule', () => {
  /** Plays `pieces` then `content` against `logged`; the deltas written, and the text a reader holds after the logged ones and them. */
  function play(logged: string, pieces: string[], content = pieces.join('')) {
    const text = new TurnText(logged);
    const deltas = pieces.flatMap((piece) => {
      const delta = text.push(piece);
      return delta ? [delta] : [];
    });
    const last = text.finish(content);
    if (last) deltas.push(last);
    return { deltas, shown: textAfter(logged, deltas) };
  }

  test('a turn played the first time: each piece is a delta, and nothing is added at the end', () => {
    assert.deepEqual(play('', ['Hello ', 'world']).deltas, [{ text: 'Hello ' }, { text: 'world' }]);
  });

  test('a deterministic replay writes nothing while it repeats what is logged, then only what goes past it', () => {
    const { deltas, shown } = play('Hello wor', ['Hello ', 'world', '!']);
    assert.deepEqual(deltas, [{ text: 'ld' }, { text: '!' }]);
    assert.equal(shown, 'Hello world!');
  });

  test('a replay that parts from what is logged restarts with its whole text so far, then goes on', () => {
    assert.deepEqual(play('Hello wor', ['Goodbye ', 'now']).deltas, [{ text: 'Goodbye ', restart: true }, { text: 'now' }]);
    assert.deepEqual(play('Hello world', ['Hello ', 'there']).deltas, [{ text: 'Hello there', restart: true }]);
  });

  test('a replay shorter than what is logged, or one with tool calls only, ends with a restart to its text', () => {
    assert.deepEqual(play('Hello world', ['Hello']).deltas, [{ text: 'Hello', restart: true }]);
    assert.deepEqual(play('Hello', [], '').deltas, [{ text: '', restart: true }]);
  });

  test('a provider that did not stream: its text is one delta at the end', () => {
    assert.deepEqual(play('', [], 'all at once').deltas, [{ text: 'all at once' }]);
    assert.deepEqual(play('', [], '').deltas, []);
  });

  test('whatever is logged and whatever is produced, the reader ends with the answer', () => {
    const words = ['a ', 'b ', 'c ', 'ab ', 'bc', 'a', ' '];
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const textOf = () => Array.from({ length: random(6) }, () => words[random(words.length)]!);
    for (let i = 0; i < 500; i++) {
      const first = textOf().join('');
      const logged = first.slice(0, random(first.length + 1));
      const pieces = random(2) ? textOf() : (first.match(/\s*\S+\s*/g) ?? []);
      const { shown } = play(logged, pieces);
      assert.equal(shown, pieces.join(''), JSON.stringify({ logged, pieces }));
    }
  });

  test('loggedText reads a turn’s events by the same rule, leaving other events out', () => {
    const events: RunEventData[] = [
      { type: 'message', data: { role: 'user', text: 'hi' } },
      deltaEvent({ text: 'Hel' }),
      deltaEvent({ text: 'lo' }),
      deltaEvent({ text: 'Good', restart: true }),
      deltaEvent({ text: 'bye' }),
    ];
    assert.equal(loggedText(events), 'Goodbye');
    assert.deepEqual(events[3], { type: 'message.delta', data: { text: 'Good', restart: true } });
    assert.deepEqual(events[1], { type: 'message.delta', data: { text: 'Hel' } });
  });
});

describe('TurnStream', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** One run in memory: a change lands only while the run is running, at the `event_seq` read and with the lease owner given. */
  function memory(fields: Partial<Run> = {}, logged: RunEventData[] = []) {
    let stored: Run = runFixture({
      id: 'run_1',
      account_id: 'acc',
      lease_owner: 'w1',
      lease_until: Date.now() + 60_000,
      event_seq: 2 + logged.length,
      ...fields,
    });
    const events: RunEventData[] = [{ type: 'run.status', data: { status: 'queued' } }, { type: 'run.status', data: { status: 'running' } }, ...logged];
    const reads: Array<[number, number]> = [];
    const runs: TurnStreamRuns = {
      async change(run: Run, change: RunChange) {
        if (!change.from.includes(stored.status) || stored.event_seq !== run.event_seq || stored.lease_owner !== change.leaseOwner) return undefined;
        events.push(...change.events);
        stored = { ...stored, ...change.set, event_seq: stored.event_seq + change.events.length } as Run;
        return structuredClone(stored);
      },
      get: async () => structuredClone(stored),
      async eventsBetween(_id, from, to) {
        reads.push([from, to]);
        return structuredClone(events.slice(from - 1, to));
      },
    };
    return {
      runs,
      events,
      reads,
      run: () => structuredClone(stored),
      cancel: () => {
        stored = { ...stored, status: 'cancelled', event_seq: stored.event_seq + 1 };
        events.push({ type: 'run.status', data: { status: 'cancelled' } });
      },
    };
  }

  const user: RunEventData = { type: 'message', data: { role: 'user', text: 'say hello' } };

  test('turn 0: the first write carries the user’s message before the first delta and marks the run; the rest rides in the turn’s change', async () => {
    const m = memory();
    const stream = await TurnStream.open(m.runs, m.run(), 'w1', 0, [user]);
    stream.onText!('Hello ');
    await vi.advanceTimersByTimeAsync(300);
    stream.onText!('world');
    const end = await stream.finish('Hello world');
    assert.deepEqual(m.events.slice(2), [user, deltaEvent({ text: 'Hello ' })]);
    assert.deepEqual(end.run.stream, { turn: 0, from_seq: 3 });
    assert.equal(end.run.event_seq, 4);
    assert.deepEqual(end.events, [deltaEvent({ text: 'world' })]);
  });

  test('an answer with no write of its own: the user’s message and the delta both ride in the turn’s change', async () => {
    const m = memory();
    const stream = await TurnStream.open(m.runs, m.run(), 'w1', 0, [user]);
    stream.onText!('Hi');
    const end = await stream.finish('Hi');
    assert.equal(m.events.length, 2);
    assert.deepEqual(end.events, [user, deltaEvent({ text: 'Hi' })]);
  });

  test('RUN_MESSAGE_DELTAS=off: no onText for the provider, and the turn writes only what it did before deltas', async () => {
    const m = memory();
    process.env.RUN_MESSAGE_DELTAS = 'off';
    try {
      const stream = await TurnStream.open(m.runs, m.run(), 'w1', 0, [user]);
      assert.equal(stream.onText, undefined);
      assert.deepEqual((await stream.finish('Hi')).events, [user]);
    } finally {
      delete process.env.RUN_MESSAGE_DELTAS;
    }
  });

  test('a cancel: the next write is refused, the call’s signal aborts with RunStopped, and no delta follows the cancel', async () => {
    const m = memory({ turns: 1 });
    const stream = await TurnStream.open(m.runs, m.run(), 'w1', 1, []);
    const signal = stream.signal(new AbortController().signal);
    stream.onText!('one ');
    await vi.advanceTimersByTimeAsync(300);
    m.cancel();
    stream.onText!('two ');
    await vi.advanceTimersByTimeAsync(300);
    assert.ok(signal.aborted);
    assert.ok(signal.reason instanceof RunStopped && signal.reason.why === 'ended');
    stream.onText!('three');
    await vi.advanceTimersByTimeAsync(1_000);
    await assert.rejects(stream.finish('one two three'), RunStopped);
    assert.deepEqual(m.events.slice(2), [deltaEvent({ text: 'one ' }), { type: 'run.status', data: { status: 'cancelled' } }]);
    assert.equal((await stream.abandon()).event_seq, 3);
  });

  test('a takeover: the write finds another owner and stops with RunStopped lease_lost', async () => {
    const m = memory({ turns: 1, lease_owner: 'w2' });
    const stream = await TurnStream.open(m.runs, m.run(), 'w1', 1, []);
    stream.onText!('x');
    await vi.advanceTimersByTimeAsync(300);
    assert.ok(stream.failure instanceof RunStopped && stream.failure.why === 'lease_lost');
    assert.equal(m.events.length, 2);
  });

  test('a replayed turn reads what its dead worker logged and continues it: the reader ends with the message’s text', async () => {
    const logged = [user, deltaEvent({ text: 'Hello ' }), deltaEvent({ text: 'wor' })];
    const m = memory({ stream: { turn: 0, from_seq: 3 } }, logged);
    const stream = await TurnStream.open(m.runs, m.run(), 'w1', 0, [user]);
    assert.deepEqual(m.reads, [[3, 5]]);
    for (const piece of ['Hello ', 'world', '!']) {
      stream.onText!(piece);
      await vi.advanceTimersByTimeAsync(300);
    }
    const end = await stream.finish('Hello world!');
    const written = [...m.events.slice(5), ...end.events];
    assert.deepEqual(written, [deltaEvent({ text: 'ld' }), deltaEvent({ text: '!' })], 'the user’s message is not written again');
    assert.deepEqual(end.run.stream, { turn: 0, from_seq: 3 }, 'the mark stays where the turn began');
    assert.equal(loggedText([...m.events, ...end.events]), 'Hello world!');
  });

  test('a replayed turn that answers otherwise restarts; one that is not marked reads nothing', async () => {
    const logged = [deltaEvent({ text: 'Hello wor' })];
    const m = memory({ turns: 1, stream: { turn: 1, from_seq: 3 } }, logged);
    const stream = await TurnStream.open(m.runs, m.run(), 'w1', 1, []);
    stream.onText!('Goodbye');
    const end = await stream.finish('Goodbye');
    assert.deepEqual(end.events, [deltaEvent({ text: 'Goodbye', restart: true })]);
    assert.equal(loggedText([...m.events, ...end.events]), 'Goodbye');

    const fresh = memory({ turns: 2, stream: { turn: 1, from_seq: 3 } });
    await TurnStream.open(fresh.runs, fresh.run(), 'w1', 2, []);
    assert.deepEqual(fresh.reads, []);
  });
});

describe('the agent loop, streaming a turn', () => {
  afterEach(() => {
    Reflect.deleteProperty(PROVIDERS, 'drip');
  });

  test('a cancel mid-answer aborts the model call within a second, and no delta is written after the cancel', async () => {
    let stored: Run = runFixture({
      id: 'run_drip',
      account_id: 'acc',
      input: 'go',
      harness: { model: 'drip/words', instructions: 'p.md', max_turns: 5, tools: [], mcp_servers: [] },
      event_seq: 2,
    });
    const events: RunEventData[] = [
      { type: 'run.status', data: { status: 'queued' } },
      { type: 'run.status', data: { status: 'running' } },
    ];
    let abortedAt: number | undefined;
    PROVIDERS.drip = {
      async complete({ onText, signal }) {
        signal?.addEventListener('abort', () => (abortedAt = Date.now()), { once: true });
        for (let i = 0; i < 40; i++) {
          await sleep(100, signal);
          onText?.(`word${i} `);
        }
        return { content: '', usage: { input_tokens: 1, output_tokens: 1 } };
      },
    };
    const runs = {
      async takeLease(_id: string, owner: string, until: number) {
        stored = { ...stored, lease_owner: owner, lease_until: until };
        return stored.status === 'running';
      },
      steps: async () => [],
      chatTurns: async () => [],
      get: async () => structuredClone(stored),
      pulse: async () => ({ status: stored.status, lease_owner: stored.lease_owner }),
      async change(run: Run, change: RunChange) {
        if (!change.from.includes(stored.status) || stored.event_seq !== run.event_seq || stored.lease_owner !== change.leaseOwner) return undefined;
        events.push(...change.events);
        stored = { ...stored, ...change.set, event_seq: stored.event_seq + change.events.length } as Run;
        return structuredClone(stored);
      },
      eventsBetween: async () => [],
    } as unknown as Runs;
    const deps = {
      runs,
      harnessFile: async () => 'be brief',
      mcp: { listTools: async () => [] },
      money: { check: async () => undefined },
      now: () => new Date(),
    };
    const loop = runLoop(deps as unknown as LoopDeps, stored, { owner: 'w1', remainingMs: () => 900_000, redelivered: false });

    await vi.waitFor(() => assert.ok(events.filter((e) => e.type === 'message.delta').length >= 2), { timeout: 5_000, interval: 20 });
    const cancelledAt = Date.now();
    stored = { ...stored, status: 'cancelled', event_seq: stored.event_seq + 1, lease_owner: null };
    events.push({ type: 'run.status', data: { status: 'cancelled' } });
    await loop;

    assert.ok(abortedAt !== undefined && abortedAt - cancelledAt < 1_000, `the call was aborted ${abortedAt! - cancelledAt} ms after the cancel`);
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.deepEqual(events.at(-1), { type: 'run.status', data: { status: 'cancelled' } }, 'nothing after the cancel');
    assert.deepEqual(events[2], { type: 'message', data: { role: 'user', text: 'go' } }, 'the user’s message came before the first delta');
    const deltas = events.filter((e) => e.type === 'message.delta');
    assert.ok(deltas.length >= 2 && deltas.length <= 6, `${deltas.length} deltas in well under 2 s`);
    assert.match(loggedText(events), /^word0 word1 (word\d+ )*$/);
  });
});
