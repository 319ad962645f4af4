import { type EventLogSource, type FollowEnd, type FollowFrame, follow } from '#events/follow.js';
import { DEADLINE_MARGIN_MS, FOLLOW_TIMING, type FollowTiming, streamDeadline, streamMaxSeconds } from '#events/log.js';
import { sseFrame } from '#platform/http/streaming.js';
import { logger } from '#platform/observability/logger.js';
import { defaultTable, type TableRef } from '#platform/table/table.js';
import { runNotFound } from './errors.js';
import { type RunEventView, runEventLog, runEventView, seqOfEventId } from './events.js';
import { isTerminal, type Run } from './model.js';
import { type EventsRead, isTerminalEvent, type Position, readAfter, readFromStart, readOn } from './run-events.js';
import { runsRepo } from './runs-repository.js';

/**
 * GET /v2/runs/{id}/events as `text/event-stream`: the run's events as they
 * are written, by the shared follow loop (lib/events/follow.ts) over the
 * run's log. No snapshot: the events are the record, so a connection sends
 * them all from seq 1 (or from the oldest kept), or those after
 * `Last-Event-ID`, then follows until the run's terminal `run.status`.
 */

export const RUN_EVENTS_TIMING = { ...FOLLOW_TIMING, deadlineMarginMs: DEADLINE_MARGIN_MS } as const;

export interface RunEventsStreamDeps {
  table: TableRef;
  /** Stream lifetime in seconds, read per connection. */
  maxSeconds: () => number;
  timing: FollowTiming & { deadlineMarginMs: number };
}

export const runEventsStreamDeps = (): RunEventsStreamDeps => ({ table: defaultTable(), maxSeconds: () => streamMaxSeconds(), timing: RUN_EVENTS_TIMING });

type RunHead = { run: Run; watermark: number; terminal: boolean };
const headOf = (run: Run): RunHead => ({ run, watermark: run.event_seq, terminal: isTerminal(run.status) });

/** The run's log as `follow` reads it; `first` is the read the connection was checked with, handed over rather than read again. */
export function runEventSource(table: TableRef, run: Run, first: EventsRead): EventLogSource<RunEventView, RunHead> {
  const log = runEventLog(table, run.id);
  const repo = runsRepo(table);
  let pending: EventsRead | undefined = first;
  let next: Position = first.next;
  return {
    head: async () => {
      const current = await repo.get(run.id);
      return current && headOf(current);
    },
    // Never asked for: every connection starts after a seq.
    snapshot: async () => ({ payloads: [], settled: true }),
    eventsAfter: async (afterSeq, limit) => {
      const read = pending?.after === afterSeq ? pending : await readAfter(log, afterSeq === next.seq ? next : { seq: afterSeq }, limit);
      pending = undefined;
      next = read.next;
      return { events: read.events.map((e) => ({ seq: e.seq, data: runEventView(run.id, e) })), complete: read.complete };
    },
    isTerminal: isTerminalEvent,
    // The run ended without its terminal event reaching this stream: the change that ended it wrote that event last, at the watermark.
    finalPayload: ({ run: ended, watermark }) =>
      runEventView(run.id, {
        seq: watermark,
        created_at: ended.completed_at ?? new Date().toISOString(),
        data: { type: 'run.status', data: { status: ended.status } },
      }),
  };
}

/** An SSE comment: EventSource ignores it, proxies and CloudFront see bytes flowing. */
export const KEEPALIVE_COMMENT = ': keepalive\n\n';

/** The frames as SSE: `id:` the event's id, `event:` its type, `data:` the event. */
export async function* runEventFrames(frames: AsyncIterable<FollowFrame<RunEventView>>): AsyncGenerator<string, void, undefined> {
  for await (const frame of frames) {
    yield frame.kind === 'keepalive' ? KEEPALIVE_COMMENT : `event: ${frame.data.type}\n${sseFrame(JSON.stringify(frame.data), frame.data.id)}`;
  }
}

export type RunEventsStream =
  /** Resumed after the run's last event, the run having ended: nothing more will come (204 tells EventSource to stop). */
  { kind: 'caught_up' } | { kind: 'stream'; frames: (signal: AbortSignal) => AsyncIterable<string> };

/**
 * Opens the stream of the caller's run. A `Last-Event-ID` that is not an
 * event id of this run (or is past its last event) is ignored, and the
 * stream starts from the beginning; one whose following events have
 * expired is refused (410 `event_cursor_expired`), before any byte is sent.
 */
export async function runEventsStream(
  deps: RunEventsStreamDeps,
  accountId: string,
  runId: string,
  lastEventId: string | undefined,
  remainingMs: number,
): Promise<RunEventsStream> {
  const startedAt = Date.now();
  const repo = runsRepo(deps.table);
  const run = await repo.getOwned(accountId, runId);
  if (!run) throw runNotFound();
  const resume = seqOfEventId(runId, lastEventId);
  // An id past `event_seq` may be a delta's of the answer being written (./deltas.ts): the log's end says.
  const head = { ...headOf(run), ...(resume !== undefined && resume > run.event_seq ? { watermark: await repo.watermark(run) } : {}) };
  const after = resume !== undefined && resume <= head.watermark ? resume : undefined;
  if (after === head.watermark && head.terminal) return { kind: 'caught_up' };
  const log = runEventLog(deps.table, runId);
  const { pageSize } = deps.timing;
  const first = after === undefined ? await readFromStart(log, head.watermark, pageSize) : await readOn(log, { seq: after }, pageSize, head.watermark);
  const deadline = streamDeadline(startedAt, deps.maxSeconds(), remainingMs, deps.timing.deadlineMarginMs);
  const closed = (end: FollowEnd) => {
    if (end.reason === 'error') logger().error('run events stream failed', { run_id: runId, error: end.error as Error });
    logger().info('run events stream closed', {
      run_id: runId,
      reason: end.reason,
      last_seq: end.lastSeq,
      frames: end.frames,
      duration_ms: Date.now() - startedAt,
    });
  };
  const source = runEventSource(deps.table, run, first);
  return {
    kind: 'stream',
    frames: (signal) => runEventFrames(follow(source, { head, after: first.after, deadline, timing: deps.timing, signal, onEnd: closed })),
  };
}
