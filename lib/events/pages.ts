import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type Key, ttlFromDate } from '#platform/table/keys.js';
import { isConditionFailure, type TableRef } from '#platform/table/table.js';

/**
 * An ordered event log in the table, written without a counter item.
 * Events are numbered 1, 2, 3… (`seq`) and stored as pages: one item holds
 * consecutive events and is keyed by its FIRST seq with a conditional put,
 * so two writers that chose the same next seq cannot both land and pages
 * tile the sequence with neither gaps nor overlaps. A writer learns the
 * next seq from the newest page (one read), or from a hint (the seq its own
 * previous flush ended at, or that its task was given), and on a lost race
 * reads again. Readers following the log page by page continue at the key
 * `last_seq + 1`; only a resume in the middle of a page needs one look back.
 * The feature that owns a log names where it lives (`EventLogRef`, its keys
 * from lib/platform/table/keys.ts) and how long it is kept.
 */

export interface EventLogRef {
  table: TableRef;
  /** The key of the page whose first event is `seq`; every page of the log shares its partition. */
  pageKey: (seq: number) => Key;
  /** Seconds a page is kept after it was written (its `ttl`). */
  retentionSeconds: number;
  /** The pages' `entity` attribute. */
  entity: string;
}

export interface LoggedEvent<D> {
  seq: number;
  created_at: string;
  data: D;
}

/** Events per page stop at this many bytes of JSON (an item holds 400 KB; a node output at most 300 KB). */
export const EVENT_PAGE_BYTES = 350_000;

/** The last seq a sort key can hold (10 digits). */
export const MAX_SEQ = 9_999_999_999;

/** Lost races in a row before an append gives up (the caller's message is redelivered). */
const MAX_ATTEMPTS = 25;

/** The Query input of the log's pages keyed from `from` to `to`. */
function pagesBetween(log: EventLogRef, from: number, to: number) {
  const first = log.pageKey(from);
  return {
    TableName: log.table.tableName,
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': first.pk, ':from': first.sk, ':to': log.pageKey(to).sk },
    ConsistentRead: true,
  };
}

/** The highest seq written so far (0 before any event), from the newest page; `onCapacity` receives its read units. */
export async function lastEventSeq(log: EventLogRef, onCapacity?: (readUnits: number) => void): Promise<number> {
  const { Items, ConsumedCapacity } = await log.table.db.send(
    new QueryCommand({
      ...pagesBetween(log, 1, MAX_SEQ),
      ProjectionExpression: 'last_seq',
      ScanIndexForward: false,
      Limit: 1,
      ...(onCapacity ? { ReturnConsumedCapacity: 'TOTAL' as const } : {}),
    }),
  );
  onCapacity?.(ConsumedCapacity?.CapacityUnits ?? 0);
  return Number(Items?.[0]?.last_seq ?? 0);
}

/**
 * A page's events as stored: deflated JSON (`events_z`, binary). Its events
 * repeat their field names, ids and timestamp, and writes are paid per KB:
 * a workflow request's one page of ten node events shrinks from three write
 * units to one. Pages written as a plain `events` list are still read.
 */
const packEvents = <D>(events: readonly LoggedEvent<D>[]) => ({ events_z: deflateRawSync(Buffer.from(JSON.stringify(events))) });

/** The events of a stored page, in either form. */
export function pageEvents<D>(page: Record<string, unknown>): LoggedEvent<D>[] {
  if (page.events_z instanceof Uint8Array) return JSON.parse(inflateRawSync(page.events_z).toString('utf8')) as LoggedEvent<D>[];
  return (page.events ?? []) as LoggedEvent<D>[];
}

/** Splits events into pages of at most EVENT_PAGE_BYTES of JSON (at least one event each). */
function paginate<D>(data: readonly D[]): D[][] {
  const pages: D[][] = [];
  let size = 0;
  for (const item of data) {
    const bytes = Buffer.byteLength(JSON.stringify(item)) + 60;
    if (pages.length === 0 || size + bytes > EVENT_PAGE_BYTES) {
      pages.push([]);
      size = 0;
    }
    pages.at(-1)!.push(item);
    size += bytes;
  }
  return pages;
}

/**
 * One page holding `data` from seq `first`, for a writer that puts it in a
 * transaction of its own (with `attribute_not_exists(pk)`) beside the change
 * the events record, and that knows `first` exactly (a counter it keeps on
 * the changed item, checked in the same transaction).
 */
export function eventPageItem<D>(log: EventLogRef, first: number, data: readonly D[], now: Date = new Date()): Record<string, unknown> {
  const events = data.map((d, i): LoggedEvent<D> => ({ seq: first + i, created_at: now.toISOString(), data: d }));
  const ttl = ttlFromDate(new Date(now.getTime() + log.retentionSeconds * 1000));
  return { ...log.pageKey(first), entity: log.entity, first_seq: first, last_seq: first + data.length - 1, ...packEvents(events), ttl };
}

/** `data` from seq `first` as pages of at most EVENT_PAGE_BYTES of JSON each (eventPageItem's), for a writer that puts them before anything reads the log. */
export function eventPageItems<D>(log: EventLogRef, first: number, data: readonly D[], now: Date = new Date()): Array<Record<string, unknown>> {
  let seq = first;
  return paginate(data).map((page) => {
    const item = eventPageItem(log, seq, page, now);
    seq += page.length;
    return item;
  });
}

/** How an appender names its events, when it may be asked to append some that an earlier delivery of its work appended already. */
export interface AppendOptions<D> {
  /**
   * The same key for the same event whoever appends it (a state change and
   * the thing it changed), never for two different ones. With it, a put
   * refused at the expected seq is read from that seq on, and the events
   * found there are left out: work redelivered, or events handed on to
   * the next task and appended by whichever copy gets there first, are
   * logged once.
   */
  identity?: (data: D) => string;
}

/** The identities of the events logged from seq `from` on (all pages). */
async function loggedFrom<D>(log: EventLogRef, from: number, identity: (data: D) => string): Promise<Set<string>> {
  return new Set((await eventsFrom<D>(log, from)).map((event) => identity(event.data)));
}

/**
 * Every kept event from seq `from` (which opens a page) on, in order, up
 * to `toSeq` when given, else to the log's end: read page by page,
 * `pagesPerQuery` pages a Query.
 */
export async function eventsFrom<D>(log: EventLogRef, from: number, options: { toSeq?: number; pagesPerQuery?: number } = {}): Promise<LoggedEvent<D>[]> {
  const { toSeq, pagesPerQuery = 25 } = options;
  const out: LoggedEvent<D>[] = [];
  for (let after = from - 1; ; ) {
    const read = await eventsAfter<D>(log, after, pagesPerQuery, true, undefined, toSeq);
    out.push(...(toSeq === undefined ? read.events : read.events.filter((event) => event.seq <= toSeq)));
    if (read.complete || read.pageEnd === undefined || (toSeq !== undefined && read.pageEnd >= toSeq)) return out;
    after = read.pageEnd;
  }
}

/**
 * Appends events in order and returns them with their seqs. `nextSeq` is
 * where the caller expects the log to continue; a wrong guess costs one
 * refused put and a read (with `identity`, one more: the events logged
 * from there on, so none is logged twice). Events of one call stay in
 * order but may be split around another writer's page.
 */
export async function appendEvents<D>(log: EventLogRef, data: readonly D[], nextSeq?: number, options: AppendOptions<D> = {}): Promise<LoggedEvent<D>[]> {
  const written: LoggedEvent<D>[] = [];
  const now = new Date();
  const ttl = ttlFromDate(new Date(now.getTime() + log.retentionSeconds * 1000));
  let next = nextSeq;
  let left: readonly D[] = data;
  let deduplicated = options.identity === undefined || nextSeq === undefined;
  pages: while (left.length > 0) {
    const page = paginate(left)[0]!;
    for (let attempt = 1; ; attempt++) {
      const first = next ?? (await lastEventSeq(log)) + 1;
      const events = page.map((d, i): LoggedEvent<D> => ({ seq: first + i, created_at: now.toISOString(), data: d }));
      try {
        await log.table.db.send(
          new PutCommand({
            TableName: log.table.tableName,
            Item: { ...log.pageKey(first), entity: log.entity, first_seq: first, last_seq: events.at(-1)!.seq, ...packEvents(events), ttl },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        written.push(...events);
        next = first + events.length;
        left = left.slice(page.length);
        break;
      } catch (error) {
        if (!isConditionFailure(error) || attempt >= MAX_ATTEMPTS) throw error;
        next = undefined;
        if (!deduplicated) {
          // Everything an earlier delivery appended of these events lies from the expected seq on.
          deduplicated = true;
          const identity = options.identity!;
          const seen = await loggedFrom(log, first, identity);
          left = left.filter((d) => !seen.has(identity(d)));
          continue pages;
        }
      }
    }
  }
  return written;
}

/**
 * Events with `seq > afterSeq`, in order, from at most `limit` pages, by
 * strongly consistent Queries bounded to the log's key range. When
 * `afterSeq` ends a page (`aligned`), the next page is keyed `afterSeq + 1`
 * and one forward Query finds everything; otherwise the page holding
 * `afterSeq + 1` starts before it and is looked up first. Expired pages
 * (TTL passed, not yet deleted) are filtered out. `complete` is false when
 * more may follow; `pageEnd` is the last seq of the last page read (a seq
 * that is `aligned`). `onCapacity` receives each Query's read units.
 * `toSeq` stops the read at the page holding that seq, so a reader that
 * wants a number of events reads about that many, however many a page
 * holds (`complete` then speaks of the pages up to it); such a read also
 * answers `pageStart`, the first seq of its last page, where a reader that
 * took only part of that page goes on without a look back.
 */
export async function eventsAfter<D>(
  log: EventLogRef,
  afterSeq: number,
  limit: number,
  aligned: boolean,
  onCapacity?: (readUnits: number) => void,
  toSeq?: number,
): Promise<{ events: LoggedEvent<D>[]; complete: boolean; pageStart?: number; pageEnd?: number }> {
  if (afterSeq >= MAX_SEQ) return { events: [], complete: true };
  const now = Math.floor(Date.now() / 1000);
  const query = async (from: number, to: number, count: number, backwards = false) => {
    const base = pagesBetween(log, from, to);
    const { Items, LastEvaluatedKey, ConsumedCapacity } = await log.table.db.send(
      new QueryCommand({
        ...base,
        FilterExpression: '#ttl > :now',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ...base.ExpressionAttributeValues, ':now': now },
        ScanIndexForward: !backwards,
        Limit: count,
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    onCapacity?.(ConsumedCapacity?.CapacityUnits ?? 0);
    return { items: (Items ?? []) as Array<Record<string, unknown>>, complete: LastEvaluatedKey === undefined };
  };
  const pages: Array<Record<string, unknown>> = [];
  let from = afterSeq + 1;
  if (!aligned && afterSeq > 0) {
    const [holding] = (await query(1, afterSeq, 1, true)).items;
    if (holding && Number(holding.last_seq) > afterSeq) {
      pages.push(holding);
      from = Number(holding.last_seq) + 1;
    }
  }
  // BETWEEN refuses a range that ends before it starts: the look back already holds everything up to `toSeq`.
  const to = Math.min(toSeq ?? MAX_SEQ, MAX_SEQ);
  const forward = from <= to ? await query(from, to, limit) : { items: [], complete: true };
  pages.push(...forward.items);
  const events = pages
    .flatMap((page) => pageEvents<D>(page))
    .map((e) => ({ seq: Number(e.seq), created_at: e.created_at, data: e.data }))
    .filter((e) => e.seq > afterSeq)
    .sort((a, b) => a.seq - b.seq);
  const last = pages.at(-1);
  if (!last) return { events, complete: forward.complete };
  return { events, complete: forward.complete, pageEnd: Number(last.last_seq), ...(toSeq === undefined ? {} : { pageStart: Number(last.first_seq) }) };
}
