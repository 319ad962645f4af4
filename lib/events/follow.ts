import { jsonFrame, KEEPALIVE_FRAME } from '#platform/http/streaming.js';
import { type FollowTiming, nextPollDelay, type SequencerState, sequenceEvents } from './log.js';

/**
 * Following an ordered event log live (specification, Events): the loop of
 * a live stream, for whatever feature keeps such a log. The feature
 * implements `EventLogSource` over its reads; `follow` decides what to send
 * and when: the snapshot, resuming after `Last-Event-ID`, waiting out and
 * skipping gaps, confirming the end, re-reading the state while idle,
 * keepalives and the deadline. Back-pressure is the consumer's: nothing is
 * read or sent until it asks for the next frame.
 */

/** A logged event: its `seq` and the payload it is sent as. */
export interface LogEvent<T> {
  seq: number;
  data: T;
}

/** The followed state as read with its watermark: the highest seq allocated when it was read. */
export interface LogHead {
  watermark: number;
  /** The followed thing is over (completed, failed, stopped…): nothing new will happen to it. */
  terminal: boolean;
}

export interface EventLogSource<T, H extends LogHead = LogHead> {
  /**
   * A fresh read of the state with its watermark, read so that the state
   * shows every change whose event is at or below the watermark;
   * undefined when the followed thing is gone.
   */
  head(): Promise<H | undefined>;
  /** The snapshot of a state, in the order to send; `settled: false` when it was caught mid-change and is worth reading again (for up to the gap grace period). */
  snapshot(head: H): Promise<{ payloads: T[]; settled: boolean }>;
  /** Events with `seq > afterSeq`, in order, at most `limit`; `complete` is false when more may follow. */
  eventsAfter(afterSeq: number, limit: number): Promise<{ events: LogEvent<T>[]; complete: boolean }>;
  /** A payload after which the stream ends. */
  isTerminal(payload: T): boolean;
  /** What is sent (with `id:` its watermark) when the state is over but no terminal payload came: it was before the resume point, or lost. */
  finalPayload(head: H): T;
  /**
   * On resume, with the first page read: whether the events after `afterSeq`
   * may be gone (expired with the log's retention), so the client gets a
   * snapshot instead. Without it, a missing event is always a gap.
   */
  resumeNeedsSnapshot?(resume: { afterSeq: number; watermark: number; firstSeq: number | undefined; nowMs: number }): boolean;
}

export type FollowFrame<T> = { kind: 'event'; id: number; data: T } | { kind: 'keepalive' };

export type FollowEndReason = 'terminal' | 'deadline' | 'client_closed' | 'gone' | 'error';

export interface FollowEnd {
  reason: FollowEndReason;
  /** The last seq delivered or given up on: where a reconnecting client resumes. */
  lastSeq: number;
  /** Event frames sent (snapshot and final payload included; keepalives not). */
  frames: number;
  /** Seqs given up on after the grace period. */
  skipped: number;
  /** What a read threw, when `reason` is `error`. */
  error?: unknown;
}

export interface FollowOptions<H extends LogHead> {
  /** The state as read before the stream opened (the access check). */
  head: H;
  /** Resume after this seq (a `Last-Event-ID` that `planStart` accepted); absent: start with the snapshot. */
  after?: number;
  /** When the stream ends at the latest (epoch ms). */
  deadline: number;
  timing: FollowTiming;
  /** Aborted when the client goes away: waits end at once. */
  signal?: AbortSignal;
  /** Called once when the stream ends, however it ends (the consumer stopping early included). */
  onEnd?: (end: FollowEnd) => void;
}

const KEEPALIVE: FollowFrame<never> = { kind: 'keepalive' };

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Follows `source` from `options.head`: the snapshot (or, with `after`, only
 * the events after it), then every later event in seq order, until a
 * terminal payload, the deadline, the source's state going away, or the
 * consumer stopping (`return()`, or `signal`). A read that fails ends the
 * stream cleanly (reason `error`): the client resumes with its last id.
 */
export async function* follow<T, H extends LogHead>(source: EventLogSource<T, H>, options: FollowOptions<H>): AsyncGenerator<FollowFrame<T>, void, undefined> {
  const { timing, deadline, signal } = options;
  const startedAt = Date.now();
  let nextKeepalive = startedAt + timing.keepaliveMs;
  let state: SequencerState = { lastSeq: options.after ?? 0 };
  let allocatedUpTo = options.head.watermark;
  /** When the state was (last) read terminal; `allocatedUpTo` is that read's watermark. */
  let terminalSeenAt = options.head.terminal ? startedAt : undefined;
  let reason: FollowEndReason | undefined;
  let error: unknown;
  let frames = 0;
  let skipped = 0;

  /** True when the stream must end now (the client left, or the deadline passed). */
  const over = (): boolean => {
    if (signal?.aborted) reason ??= 'client_closed';
    else if (Date.now() >= deadline) reason ??= 'deadline';
    return reason !== undefined;
  };

  /** A fresh read of the state; undefined, and the stream ends (`gone`), when the followed thing is gone. */
  const reread = async (): Promise<H | undefined> => {
    const current = await source.head();
    if (!current) reason = 'gone';
    return current;
  };

  /** Waits `ms`, sending keepalives as they fall due; false when the stream must end instead. */
  async function* wait(ms: number): AsyncGenerator<FollowFrame<T>, boolean, undefined> {
    const until = Date.now() + ms;
    for (;;) {
      if (over()) return false;
      const now = Date.now();
      if (now >= nextKeepalive) {
        while (nextKeepalive <= now) nextKeepalive += timing.keepaliveMs;
        yield KEEPALIVE;
      } else if (now >= until) {
        return true;
      } else {
        await sleep(Math.min(until, nextKeepalive, deadline) - now, signal);
      }
    }
  }

  /** Sends the snapshot of `head`, read again while it settles; true when the state is over, undefined when the stream must end. */
  async function* snapshot(head: H): AsyncGenerator<FollowFrame<T>, boolean | undefined, undefined> {
    let current = head;
    let taken = await source.snapshot(current);
    for (let waited = 0; !taken.settled && waited < timing.gapGraceMs; waited += timing.pollMinMs) {
      if (!(yield* wait(timing.pollMinMs))) return undefined;
      current = (await source.head()) ?? current;
      taken = await source.snapshot(current);
    }
    if (over()) return undefined;
    state = { lastSeq: current.watermark };
    allocatedUpTo = current.watermark;
    for (const data of taken.payloads) {
      frames += 1;
      yield { kind: 'event', id: current.watermark, data };
    }
    return current.terminal;
  }

  try {
    if (options.after === undefined && (yield* snapshot(options.head))) {
      reason = 'terminal';
      return;
    }
    let checkResume = options.after !== undefined;
    let delay = timing.pollMinMs;
    let lastProgress = Date.now();
    let lastCheck = lastProgress;
    while (!over()) {
      const page = await source.eventsAfter(state.lastSeq, timing.pageSize);
      if (over()) break;
      const now = Date.now();
      if (checkResume) {
        checkResume = false;
        const resume = { afterSeq: state.lastSeq, watermark: allocatedUpTo, firstSeq: page.events[0]?.seq, nowMs: now };
        if (source.resumeNeedsSnapshot?.(resume)) {
          const current = await reread();
          if (!current) break;
          if (yield* snapshot(current)) reason = 'terminal';
          continue;
        }
      }
      const result = sequenceEvents(state, page.events, { nowMs: now, graceMs: timing.gapGraceMs, complete: page.complete, allocatedUpTo });
      state = result.state;
      skipped += result.skipped;
      for (const logged of result.deliver) {
        frames += 1;
        if (source.isTerminal(logged.data)) reason = 'terminal';
        yield { kind: 'event', id: logged.seq, data: logged.data };
        if (reason === 'terminal') return;
      }
      if (result.deliver.length > 0 || result.skipped > 0) lastProgress = now;
      allocatedUpTo = Math.max(allocatedUpTo, state.lastSeq);

      // The state is over, everything logged up to its read is delivered,
      // and no terminal payload came: it was sent before the resume point,
      // or its event was lost. Confirm with a fresh read once the writers
      // have had time to append their last events, then send the state.
      if (terminalSeenAt !== undefined && page.complete && state.lastSeq >= allocatedUpTo && now - terminalSeenAt >= timing.gapGraceMs) {
        const current = await reread();
        if (!current) break;
        // No longer over (a redriven workflow request): followed on, like any state that goes on.
        if (current.terminal && current.watermark <= state.lastSeq) {
          frames += 1;
          reason = 'terminal';
          yield { kind: 'event', id: current.watermark, data: source.finalPayload(current) };
          return;
        }
        allocatedUpTo = current.watermark;
        terminalSeenAt = current.terminal ? now : undefined;
      } else if (terminalSeenAt === undefined && now - Math.max(lastProgress, lastCheck) >= timing.idleCheckMs) {
        // Idle: a terminal state whose event never got written is found here.
        lastCheck = now;
        const current = await reread();
        if (!current) break;
        allocatedUpTo = Math.max(allocatedUpTo, current.watermark);
        if (current.terminal) terminalSeenAt = now;
      }
      delay = nextPollDelay(delay, result.deliver.length > 0, page.complete, timing);
      if (!(yield* wait(delay))) break;
    }
  } catch (failure) {
    reason = 'error';
    error = failure;
  } finally {
    options.onEnd?.({ reason: reason ?? 'client_closed', lastSeq: state.lastSeq, frames, skipped, ...(reason === 'error' ? { error } : {}) });
  }
}

/** The frames as SSE text (`id:` and one JSON `data:` line, or the specification's keepalive), for a response body (`streamBody` in lib/platform/http/streaming.ts). */
export async function* sse<T>(frames: AsyncIterable<FollowFrame<T>>): AsyncGenerator<string, void, undefined> {
  for await (const frame of frames) yield frame.kind === 'keepalive' ? KEEPALIVE_FRAME : jsonFrame(frame.data, frame.id);
}
