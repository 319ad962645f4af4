import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test, vi } from 'vitest';
import { PROVIDERS } from '#models/registry.js';
import { sleep } from '#models/streaming.js';
import { type LoopDeps, runLoop } from '#runs/agent-loop.js';
import { DELTA_INTERVAL_MS, type Delta, deltaEvent, loggedText, TurnStream, type TurnStreamRuns, TurnText, textAfter, WritePacer } from '#runs/deltas.js';
import { RunStopped } from '#runs/lease.js';
import type { Run, RunEventData } from '#runs/model.js';
import type { RunChange, Runs } from '#runs/run-changes.js';
import { runFixture } from '../helpers/run-fixture.js';

/**
 * Token deltas (lib/runs/deltas.ts): the pacing of the writes on fake
 * timers, the replay rule of TurnText, and a turn's stream on a run in
 * memory whose log takes a page only right after its last event, as the
 * table's conditional put does.
 */

describe('WritePacer', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A pacer whose writes take `writeMs` each and write the text pushed since the last one; every write with the time it began. */
  function pacer(writeMs = 10) {
    const writes: Array<{ at: number; text: string }> = [];
    const failures: unknown[] = [];
    const start = Date.now();
    let pending = '';
    let fail: unknown;
    const p = new WritePacer(
      async () => {
        writes.push({ at: Date.now() - start, text: pending });
        pending = '';
        await new Promise((resolve) => setTimeout(resolve, writeMs));
        if (fail !== undefined) throw fail;
      },
      (error) => failures.push(error),
    );
    const push = (text: string) => {
      pending += text;
      p.poke();
    };
    return { p, push, writes, failures, rest: () => pending, failWith: (error: unknown) => (fail = error) };
  }

  test('pieces every 20 ms for 2 s are written at most every 250 ms, in order, and what is left stays for the turn’s change', async () => {
    const { p, push, writes, rest } = pacer();
    const pieces = Array.from({ length: 100 }, (_, i) => `w${i} `);
    for (const piece of pieces) {
      push(piece);
      await vi.advanceTimersByTimeAsync(20);
    }
    // A write may be in flight: drain waits for it.
    const drained = p.drain();
    await vi.advanceTimersByTimeAsync(50);
    await drained;
    assert.ok(writes.length >= 8 && writes.length <= 9, `${writes.length} writes in 2 s`);
    for (const [i, w] of writes.entries()) if (i > 0) assert.ok(w.at - writes[i - 1]!.at >= DELTA_INTERVAL_MS, `write ${i} at ${w.at}`);
    assert.deepEqual(writes[0], { at: 0, text: 'w0 ' }, 'the first piece is written at once');
    assert.equal([...writes.map((w) => w.text), rest()].join(''), pieces.join(''));
  });

  test('an answer produced at once is never written: drained in the same turn of the event loop, it is all left', async () => {
    const { p, push, writes, rest } = pacer();
    push('Hello ');
    push('world');
    await p.drain();
    await vi.advanceTimersByTimeAsync(1_000);
    assert.equal(writes.length, 0, 'nothing, then or after drain');
    assert.equal(rest(), 'Hello world');
  });

  test('pieces that come within 250 ms of a write wait for the interval', async () => {
    const { p, push, writes, rest } = pacer();
    push('Hello ');
    await vi.advanceTimersByTimeAsync(100);
    push('wor');
    await vi.advanceTimersByTimeAsync(100);
    push('ld');
    assert.deepEqual(
      writes.map((w) => [w.at, w.text]),
      [[0, 'Hello ']],
    );
    await p.drain();
    assert.equal(rest(), 'world');
  });

  test('a piece that comes after a silence longer than the interval is written at once', async () => {
    const { push, writes } = pacer();
    await vi.advanceTimersByTimeAsync(600);
    push('late ');
    await vi.advanceTimersByTimeAsync(0);
    assert.deepEqual(
      writes.map((w) => [w.at, w.text]),
      [[600, 'late ']],
    );
    await vi.advanceTimersByTimeAsync(500);
    push('again');
    await vi.advanceTimersByTimeAsync(0);
    assert.deepEqual(
      writes.map((w) => w.at),
      [600, 1100],
    );
  });

  test('one write at a time: a slow write holds the next back until it is done', async () => {
    const { p, push, writes } = pacer(600);
    await vi.advanceTimersByTimeAsync(300);
    push('a');
    await vi.advanceTimersByTimeAsync(50);
    push('b');
    push('c');
    await vi.advanceTimersByTimeAsync(1_000);
    assert.deepEqual(
      writes.map((w) => w.text),
      ['a', 'bc'],
    );
    assert.equal(writes[0]!.at, 300);
    assert.ok(writes[1]!.at >= 900 && writes[1]!.at < 910, `the second write began at ${writes[1]!.at}, once the first was done`);
    const drained = p.drain();
    await vi.advanceTimersByTimeAsync(600);
    await drained;
  });

  test('a write that fails stops it: the failure is told once, nothing more is written, and drain throws it', async () => {
    const { p, push, writes, failures, failWith } = pacer();
    const stopped = new RunStopped('ended');
    failWith(stopped);
    push('a');
    await vi.advanceTimersByTimeAsync(300);
    push('b');
    await vi.advanceTimersByTimeAsync(1_000);
    assert.equal(writes.length, 1);
    assert.deepEqual(failures, [stopped]);
    await assert.rejects(p.drain(), (e) => e === stopped);
  });
});

describe('TurnText: the replay rule', () => {
  /** Plays `pieces` (each written as it comes) then `content` against `logged`; the deltas written, and the text a reader holds after the logged ones and them. */
  function play(logged: string, pieces: string[], content = pieces.join('')) {
    const text = new TurnText(logged);
    const deltas: Delta[] = [];
    for (const piece of pieces) {
      text.push(piece);
      const delta = text.pending();
      if (delta) {
        text.written(delta);
        deltas.push(delta);
      }
    }
    const last = text.final(content);
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

  test('pieces written a few at a time (as the pacer does) give the same text', () => {
    const text = new TurnText('');
    text.push('a ');
    text.push('b ');
    assert.deepEqual(text.pending(), { text: 'a b ' });
    text.written({ text: 'a b ' });
    assert.equal(text.pending(), undefined);
    text.push('c');
    assert.deepEqual(text.pending(), { text: 'c' });
  });

  test('rebased on text another writer logged, it restarts unless its own text goes on from it', () => {
    const text = new TurnText('');
    text.push('Hello world');
    text.rebase('Hello X ');
    assert.deepEqual(text.pending(), { text: 'Hello world', restart: true });
    const extended = new TurnText('');
    extended.push('Hello world');
    extended.rebase('Hello ');
    assert.deepEqual(extended.pending(), { text: 'world' });
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

  /**
   * One run in memory whose log takes a page only right after its last
   * event (the table's conditional put on the page's key). `logged`: the
   * events after `event_seq` (2), deltas an earlier worker wrote.
   */
  function memory(fields: Partial<Run> = {}, logged: RunEventData[] = []) {
    let stored: Run = runFixture({ id: 'run_1', account_id: 'acc', lease_owner: 'w1', lease_until: Date.now() + 60_000, event_seq: 2, ...fields });
    const events: RunEventData[] = [{ type: 'run.status', data: { status: 'queued' } }, { type: 'run.status', data: { status: 'running' } }, ...logged];
    const reads: number[] = [];
    const puts: number[] = [];
    const runs: TurnStreamRuns = {
      get: async () => structuredClone(stored),
      async eventsFrom(_id, from) {
        reads.push(from);
        return structuredClone(events.map((data, i) => ({ seq: i + 1, created_at: '2026-11-27T00:00:00.000Z', data })).slice(from - 1));
      },
      async appendAfter(_id, afterSeq, page) {
        puts.push(afterSeq + 1);
        if (events.length !== afterSeq) return false;
        events.push(...structuredClone(page));
        return true;
      },
    };
    return {
      runs,
      events,
      reads,
      puts,
      run: () => structuredClone(stored),
      cancel: () => {
        events.push({ type: 'run.status', data: { status: 'cancelled' } });
        stored = { ...stored, status: 'cancelled', event_seq: events.length, lease_owner: null };
      },
      takeOver: (owner: string, page: RunEventData[]) => {
        stored = { ...stored, lease_owner: owner };
        events.push(...page);
      },
    };
  }

  const user: RunEventData = { type: 'message', data: { role: 'user', text: 'say hello' } };

  test('turn 0: the first write is a page of the log only, the user’s message before the first delta; the rest rides in the turn’s change after it', async () => {
    const m = memory();
    const stream = await TurnStream.open(m.runs, m.run(), 'w1', 0, [user]);
    stream.onText!('Hello ');
    await vi.advanceTimersByTimeAsync(300);
    stream.onText!('world');
    const end = await stream.finish('Hello world');
    assert.deepEqual(m.events.slice(2), [user, deltaEvent({ text: 'Hello ' })]);
    assert.deepEqual(m.puts, [3], 'one put, right after the run’s last event');
    assert.equal(m.run().event_seq, 2, 'the run item is not written');
    assert.deepEqual(end, { afterSeq: 4, events: [deltaEvent({ text: 'world' })] });
  });

  test('an answer with no write of its own: the user’s message and the delta both ride in the turn’s change', async () => {
    const m = memory();
    const stream = await TurnStream.open(m.runs, m.run(), 'w1', 0, [user]);
    stream.onText!('Hi');
    const end = await stream.finish('Hi');
    assert.equal(m.events.length, 2);
    assert.deepEqual(end, { afterSeq: 2, events: [user, deltaEvent({ text: 'Hi' })] });
  });

  test('RUN_MESSAGE_DELTAS=off: no onText for the provider, no read, and the turn writes only what it did before deltas', async () => {
    const m = memory();
    process.env.RUN_MESSAGE_DELTAS = 'off';
    try {
      const stream = await TurnStream.open(m.runs, m.run(), 'w1', 0, [user]);
      assert.equal(stream.onText, undefined);
      assert.deepEqual(await stream.finish('Hi'), { events: [user] });
      assert.deepEqual(m.reads, []);
    } finally {
      delete process.env.RUN_MESSAGE_DELTAS;
    }
  });

  test('a cancel: the next put finds its page, the call’s signal aborts with RunStopped, and no delta follows the cancel', async () => {
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
  });

  test('a takeover: the first page of the new holder stops the old one with RunStopped lease_lost', async () => {
    const m = memory({ turns: 1 });
    const stream = await TurnStream.open(m.runs, m.run(), 'w1', 1, []);
    stream.onText!('x ');
    await vi.advanceTimersByTimeAsync(300);
    m.takeOver('w2', [deltaEvent({ text: 'x ' })]);
    stream.onText!('y');
    await vi.advanceTimersByTimeAsync(300);
    assert.ok(stream.failure instanceof RunStopped && stream.failure.why === 'lease_lost');
    assert.equal(m.events.length, 4, 'nothing after the new holder’s page');
  });

  test('a replayed turn reads what its dead worker logged past event_seq and continues it: the reader ends with the message’s text', async () => {
    const m = memory({}, [user, deltaEvent({ text: 'Hello ' }), deltaEvent({ text: 'wor' })]);
    const stream = await TurnStream.open(m.runs, m.run(), 'w1', 0, [user]);
    assert.deepEqual(m.reads, [3]);
    for (const piece of ['Hello ', 'world', '!']) {
      stream.onText!(piece);
      await vi.advanceTimersByTimeAsync(300);
    }
    const end = await stream.finish('Hello world!');
    const written = [...m.events.slice(5), ...end.events];
    assert.deepEqual(written, [deltaEvent({ text: 'ld' }), deltaEvent({ text: '!' })], 'the user’s message is not written again');
    assert.equal(end.afterSeq, 7);
    assert.equal(loggedText([...m.events, ...end.events]), 'Hello world!');
  });

  test('a replayed turn that answers otherwise restarts; a turn marked by an earlier version reads from its mark', async () => {
    const m = memory({}, [deltaEvent({ text: 'Hello wor' })]);
    const stream = await TurnStream.open(m.runs, m.run(), 'w1', 0, []);
    stream.onText!('Goodbye');
    const end = await stream.finish('Goodbye');
    assert.deepEqual(end.events, [deltaEvent({ text: 'Goodbye', restart: true })]);
    assert.equal(loggedText([...m.events, ...end.events]), 'Goodbye');

    // Earlier versions wrote each delta as a change of the run, and marked the turn: its deltas lie before event_seq.
    const legacy = memory({ turns: 1, event_seq: 3, stream: { turn: 1, from_seq: 3 } }, [deltaEvent({ text: 'Hello ' })]);
    const replayed = await TurnStream.open(legacy.runs, legacy.run(), 'w1', 1, []);
    assert.deepEqual(legacy.reads, [3]);
    replayed.onText!('Hello world');
    assert.deepEqual((await replayed.finish('Hello world')).events, [deltaEvent({ text: 'world' })]);
    const later = memory({ turns: 2, event_seq: 3, stream: { turn: 1, from_seq: 3 } }, [deltaEvent({ text: 'Hello ' })]);
    await TurnStream.open(later.runs, later.run(), 'w1', 2, []);
    assert.deepEqual(later.reads, [4], 'another turn’s mark is not this one’s');
  });

  test('a page of a worker that lost the run, found by a put: the turn is read again and goes on from what a reader holds', async () => {
    const m = memory({ turns: 1 });
    const stream = await TurnStream.open(m.runs, m.run(), 'w1', 1, []);
    stream.onText!('Hello ');
    await vi.advanceTimersByTimeAsync(300);
    // The other worker's lease ran out while it still wrote: its page came first, the run is still w1's.
    m.events.push(deltaEvent({ text: 'Hi there ' }));
    stream.onText!('world');
    await vi.advanceTimersByTimeAsync(300);
    assert.equal(stream.failure, undefined);
    assert.deepEqual(m.events.at(-1), deltaEvent({ text: 'Hello world', restart: true }));
    const end = await stream.finish('Hello world');
    assert.deepEqual(end, { afterSeq: 5, events: [] });
    assert.equal(loggedText(m.events), 'Hello world');
  });

  test('a remainder longer than FOLD_MAX_CHARS is written on its own page before the turn’s change', async () => {
    const m = memory({ turns: 1 });
    const stream = await TurnStream.open(m.runs, m.run(), 'w1', 1, []);
    const long = 'word '.repeat(4_000);
    stream.onText!(long);
    const end = await stream.finish(long);
    assert.deepEqual(m.events.slice(2), [deltaEvent({ text: long })]);
    assert.deepEqual(end, { afterSeq: 3, events: [] });
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
        const after = change.afterSeq ?? events.length;
        if (!change.from.includes(stored.status) || stored.event_seq !== run.event_seq || stored.lease_owner !== change.leaseOwner || events.length !== after)
          return undefined;
        events.push(...change.events);
        stored = { ...stored, ...change.set, event_seq: after + change.events.length } as Run;
        return structuredClone(stored);
      },
      eventsFrom: async (_id: string, from: number) => events.map((data, i) => ({ seq: i + 1, created_at: '', data })).slice(from - 1),
      async appendAfter(_id: string, afterSeq: number, page: RunEventData[]) {
        if (events.length !== afterSeq) return false;
        events.push(...page);
        return true;
      },
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
    events.push({ type: 'run.status', data: { status: 'cancelled' } });
    stored = { ...stored, status: 'cancelled', event_seq: events.length, lease_owner: null };
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
