import { type EventLogRef, eventsAfter, type LoggedEvent } from '#events/pages.js';
import { CursorInvalidError, DomainError, NotAcceptableError } from '#platform/errors.js';
import { limitParam } from '#platform/http/common-schemas.js';
import { decodeCursor, encodeCursor } from '#platform/http/cursor.js';
import type { ServiceKeySource } from '#platform/secrets/service-key.js';
import type { TableRef } from '#platform/table/table.js';
import { EventLimitInvalidError, runNotFound } from './errors.js';
import { RUN_EVENT_RETENTION_SECONDS, type RunEventView, runEventLog, runEventView } from './events.js';
import { isTerminal, RUN_TERMINAL, type RunEventData, type RunStatus } from './model.js';
import { RUN_EVENTS_LIMIT } from './run-events-schemas.js';
import { runsRepo } from './runs-repository.js';

/**
 * GET /v2/runs/{id}/events: a run's events as pages of JSON, and the reads
 * the event stream shares (./run-events-stream.ts). Every read is one Query
 * bounded to the pages that hold the events wanted (`toSeq` of eventsAfter),
 * from the page boundary the position carries, so a page costs the same at
 * seq 10 as at seq 10 000. What is kept of a log is a suffix: pages expire
 * in seq order, a whole page at a time.
 */

export class EventCursorExpiredError extends DomainError {
  constructor() {
    const days = RUN_EVENT_RETENTION_SECONDS / 86_400;
    super('gone', 'event_cursor_expired', `The events after this position are past their ${days}-day retention; start again from the oldest kept.`);
  }
}

/** Where a read stands: after event `seq`, reading on from `from`, the end of a page at or before it (absent: not known, one look back finds it). */
export interface Position {
  seq: number;
  from?: number;
}

export interface EventsRead {
  /** The seq the events follow. */
  after: number;
  events: LoggedEvent<RunEventData>[];
  /** Where the next read starts. */
  next: Required<Position>;
  /** Fewer events than asked: the log held no more when read. */
  complete: boolean;
}

/** Up to `count` events after `at.seq`, by one Query (two when `at.from` is not known). */
export async function readAfter(log: EventLogRef, at: Position, count: number): Promise<EventsRead> {
  const page = await eventsAfter<RunEventData>(log, at.from ?? at.seq, count + 1, at.from !== undefined, undefined, at.seq + count);
  const events = page.events.filter((e) => e.seq > at.seq).slice(0, count);
  const last = events.at(-1)?.seq;
  // A read that stops inside a page goes on from that page's start.
  const from = last === undefined ? (at.from ?? at.seq) : last === page.pageEnd || page.pageStart === undefined ? last : page.pageStart - 1;
  return { after: at.seq, events, next: { seq: last ?? at.seq, from }, complete: events.length < count };
}

/** The events after `at.seq`, refused when they have expired (the log went on past it, but does not start right after it). */
export async function readOn(log: EventLogRef, at: Position, count: number, watermark: number): Promise<EventsRead> {
  const read = await readAfter(log, at, count);
  if (at.seq < watermark && read.events[0]?.seq !== at.seq + 1) throw new EventCursorExpiredError();
  return read;
}

/** Whether event `seq` is still kept. */
async function kept(log: EventLogRef, seq: number): Promise<boolean> {
  return (await eventsAfter<RunEventData>(log, seq - 1, 1, false, undefined, seq)).events[0]?.seq === seq;
}

/**
 * The first events of the log, from seq 1, or from the oldest kept when the
 * first have expired: found in the first read when it holds any, else by
 * halving [count + 1, watermark] (a few small Queries, for old runs only).
 */
export async function readFromStart(log: EventLogRef, watermark: number, count: number): Promise<EventsRead> {
  const read = await readAfter(log, { seq: 0, from: 0 }, count);
  const oldest = read.events[0]?.seq;
  // The oldest kept event opens its page, so the one before it ends a page: a full read from there.
  if (oldest !== undefined)
    return oldest === 1 || read.next.seq >= watermark ? { ...read, after: oldest - 1 } : readAfter(log, { seq: oldest - 1, from: oldest - 1 }, count);
  // Nothing kept: what comes next follows the watermark (the end of a page).
  if (watermark <= count || !(await kept(log, watermark))) return { after: watermark, events: [], next: { seq: watermark, from: watermark }, complete: true };
  let [low, high] = [count + 1, watermark];
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (await kept(log, middle)) high = middle;
    else low = middle + 1;
  }
  return readAfter(log, { seq: low - 1, from: low - 1 }, count);
}

export const isTerminalEvent = (event: Pick<RunEventView, 'type' | 'data'>): boolean =>
  event.type === 'run.status' && RUN_TERMINAL.includes((event.data as { status: RunStatus }).status);

const CURSOR_SCOPE = 'run-events';

async function positionOf(cursor: string, runId: string, key: ServiceKeySource): Promise<Required<Position>> {
  const { s, f } = await decodeCursor(cursor, CURSOR_SCOPE, { run_id: runId }, key);
  const seq = Number(s);
  const from = Number(f);
  if (!Number.isSafeInteger(seq) || !Number.isSafeInteger(from) || from < 0 || from > seq) throw new CursorInvalidError();
  return { seq, from };
}

const LIMIT = limitParam(RUN_EVENTS_LIMIT.max, RUN_EVENTS_LIMIT.default);

function limitOf(sent: string | undefined): number {
  const parsed = LIMIT.safeParse(sent);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new EventLimitInvalidError({ name: 'limit', location: 'query', reason: issue.message, code: issue.code });
}

export interface RunEventsDeps {
  table: TableRef;
  /** Signs and checks the page's cursors. */
  serviceKey: ServiceKeySource;
}

/**
 * A page of the run's events in seq order: from seq 1 (or the oldest kept),
 * or after the cursor. `next_cursor` is null only once the run has ended
 * and the page holds its last event; while it goes on, a page without
 * `has_more` still has a cursor, to ask for what comes later.
 */
export async function runEventsPage(deps: RunEventsDeps, accountId: string, runId: string, query: { limit?: string; cursor?: string }) {
  const limit = limitOf(query.limit);
  const position = query.cursor === undefined ? undefined : await positionOf(query.cursor, runId, deps.serviceKey);
  const repo = runsRepo(deps.table);
  const run = await repo.getOwned(accountId, runId);
  if (!run) throw runNotFound();
  const watermark = await repo.watermark(run);
  // A position past the watermark was never issued: seqs only grow.
  if (position && position.seq > watermark) throw new CursorInvalidError();
  const log = runEventLog(deps.table, runId);
  const read = position ? await readOn(log, position, limit, watermark) : await readFromStart(log, watermark, limit);
  const data = read.events.map((event) => runEventView(runId, event));
  const hasMore = read.next.seq < watermark;
  const ended = isTerminal(run.status) || data.some(isTerminalEvent);
  const next = hasMore || !ended ? await encodeCursor(CURSOR_SCOPE, { run_id: runId }, { s: read.next.seq, f: read.next.from }, deps.serviceKey) : null;
  return { data, page: { has_more: hasMore, next_cursor: next } };
}

export const EVENTS_MEDIA_TYPES = { json: 'application/json', sse: 'text/event-stream' } as const;
export type EventsMedia = keyof typeof EVENTS_MEDIA_TYPES;

/** How closely a media range matches a type: 2 exactly, 1 by its top-level type (`text/*`), 0 by the any-type range, -1 not at all. */
function specificity(range: string, type: string): number {
  if (range === type) return 2;
  if (range === '*/*') return 0;
  return range.endsWith('/*') && type.startsWith(range.slice(0, -1)) ? 1 : -1;
}

/**
 * The representation `Accept` asks for: each is weighed by the most
 * specific range that matches it (RFC 9110, 12.5.1). JSON wins a tie, so
 * no Accept, the any-type range, or both named alike, get the page.
 * Neither acceptable: 406.
 */
export function eventsMediaType(accept: string | undefined): EventsMedia {
  if (!accept?.trim()) return 'json';
  const ranges = accept.split(',').map((part) => {
    const [range = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const q = Number(params.find((p) => p.startsWith('q='))?.slice(2) ?? 1);
    return { range, q: Number.isFinite(q) && q >= 0 && q <= 1 ? q : 1 };
  });
  const weight = (type: string): number => {
    let best = { specificity: -1, q: 0 };
    for (const { range, q } of ranges) {
      const s = specificity(range, type);
      if (s > best.specificity) best = { specificity: s, q };
    }
    return best.q;
  };
  const json = weight(EVENTS_MEDIA_TYPES.json);
  const sse = weight(EVENTS_MEDIA_TYPES.sse);
  if (json <= 0 && sse <= 0) throw new NotAcceptableError(Object.values(EVENTS_MEDIA_TYPES));
  return sse > json ? 'sse' : 'json';
}
