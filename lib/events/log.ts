/**
 * The pure parts of following an ordered event log: where a connection
 * starts, strictly ordered delivery over the log's gaps, the polling
 * back-off and the stream's deadline. The loop that uses them is `follow`
 * (./follow.ts).
 *
 * An event log here is a sequence of events numbered 1, 2, 3… (`seq`) with
 * a watermark: the highest seq allocated so far. A writer allocates a seq
 * and then writes its event, so an allocated seq may be missing for a while
 * (a slow writer) or for ever (a writer that died in between).
 */

/** How a follower paces itself. */
export interface FollowTiming {
  /** Keepalive period. */
  keepaliveMs: number;
  /** How long a missing seq is waited for before it is skipped (its writer died between allocating and writing). */
  gapGraceMs: number;
  /** Poll period right after an event arrived; doubles while idle up to `pollMaxMs`. */
  pollMinMs: number;
  pollMaxMs: number;
  /** While idle, the followed state itself is re-read this often (finds a terminal state whose event never got written). */
  idleCheckMs: number;
  /** Events per read. */
  pageSize: number;
}

/** The specification's keepalive (Events 5) and the polling the live streams were measured with (docs/benchmarks.md). */
export const FOLLOW_TIMING: Readonly<FollowTiming> = {
  keepaliveMs: 3_000,
  gapGraceMs: 5_000,
  pollMinMs: 250,
  pollMaxMs: 1_000,
  idleCheckMs: 30_000,
  pageSize: 100,
};

/** `Last-Event-ID` as a seq: a non-negative integer, else absent. */
export function parseLastEventId(value: string | undefined): number | undefined {
  const text = value?.trim();
  if (!text || !/^\d{1,15}$/.test(text)) return undefined;
  const seq = Number(text);
  return Number.isSafeInteger(seq) ? seq : undefined;
}

/** A stream ends this long before its Lambda invocation's deadline. */
export const DEADLINE_MARGIN_MS = 10_000;

/** The specification's connection time-out (Events 7); STREAM_MAX_SECONDS overrides it. */
export const DEFAULT_STREAM_MAX_SECONDS = 1_800;

/** STREAM_MAX_SECONDS (read per invocation), or the specification's 30 minutes. */
export function streamMaxSeconds(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.STREAM_MAX_SECONDS);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_STREAM_MAX_SECONDS;
}

/**
 * When a stream ends: after `maxSeconds`, or `marginMs` before the
 * invocation's deadline (`remainingMs` from its start), whichever comes first.
 */
export function streamDeadline(startMs: number, maxSeconds: number, remainingMs: number, marginMs: number = DEADLINE_MARGIN_MS): number {
  return startMs + Math.max(0, Math.min(maxSeconds * 1000, remainingMs - marginMs));
}

export type StartPlan =
  /** Send the snapshot (each payload with `id: watermark`), then events after the watermark. */
  | { kind: 'snapshot' }
  /** Send only events after `afterSeq`: the client has everything up to it. */
  | { kind: 'resume'; afterSeq: number }
  /** The followed thing is over and the client has all of it: 204, which tells EventSource not to reconnect. */
  | { kind: 'caught_up' };

/**
 * Where a connection starts. A Last-Event-ID beyond the watermark was never
 * issued by this stream, so it is treated as absent.
 */
export function planStart(lastEventId: number | undefined, watermark: number, terminal: boolean): StartPlan {
  if (lastEventId === undefined || lastEventId > watermark) return { kind: 'snapshot' };
  if (terminal && lastEventId === watermark) return { kind: 'caught_up' };
  return { kind: 'resume', afterSeq: lastEventId };
}

export interface SequencerState {
  /** Last seq delivered or given up on. */
  lastSeq: number;
  /** Since when `lastSeq + 1` has been missing. */
  holeSince?: number;
}

/**
 * Strictly ordered delivery over an event log that may have holes. Events
 * come from a read of `seq > lastSeq`; `lastSeq + 1` is delivered next.
 * A missing seq is waited for up to `graceMs` from when it was first seen
 * missing, then skipped. It is known to be missing when a later event
 * exists, or, when the page was complete, when the watermark
 * (`allocatedUpTo`) says it was allocated.
 */
export function sequenceEvents<E extends { seq: number }>(
  state: SequencerState,
  events: readonly E[],
  options: { nowMs: number; graceMs: number; complete: boolean; allocatedUpTo: number },
): { deliver: E[]; state: SequencerState; skipped: number } {
  const { nowMs, graceMs } = options;
  let last = state.lastSeq;
  let holeSince = state.holeSince;
  let skipped = 0;
  const deliver: E[] = [];
  const ordered = [...events].filter((e) => e.seq > last).sort((a, b) => a.seq - b.seq);
  for (const event of ordered) {
    if (event.seq <= last) continue; // the same seq twice
    if (event.seq !== last + 1) {
      holeSince ??= nowMs;
      if (nowMs - holeSince < graceMs) return { deliver, state: { lastSeq: last, holeSince }, skipped };
      skipped += event.seq - last - 1;
    }
    deliver.push(event);
    last = event.seq;
    holeSince = undefined;
  }
  if (options.complete && options.allocatedUpTo > last) {
    holeSince ??= nowMs;
    if (nowMs - holeSince >= graceMs) {
      skipped += options.allocatedUpTo - last;
      last = options.allocatedUpTo;
      holeSince = undefined;
    }
  }
  return { deliver, state: holeSince === undefined ? { lastSeq: last } : { lastSeq: last, holeSince }, skipped };
}

/** Back-off between polls: at once for the next page, fast after activity, slower while idle. */
export function nextPollDelay(
  previousMs: number,
  delivered: boolean,
  complete: boolean,
  timing: Pick<FollowTiming, 'pollMinMs' | 'pollMaxMs'> = FOLLOW_TIMING,
): number {
  if (!complete) return 0;
  if (delivered) return timing.pollMinMs;
  return Math.min(Math.max(previousMs, timing.pollMinMs / 2) * 2, timing.pollMaxMs);
}
