import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { keys, ttlFromDate } from '#platform/table/keys.js';
import { isConditionFailure, type TableRef } from '#platform/table/table.js';

/**
 * The request's ordered event log, written without a counter item. Events
 * are numbered 1, 2, 3… (`seq`) and stored as pages: one item holds
 * consecutive events and is keyed by its FIRST seq with a conditional put,
 * so two writers that chose the same next seq cannot both land and pages
 * tile the sequence with neither gaps nor overlaps. A writer learns the
 * next seq from the newest page (one read), or from a hint (the seq its own
 * previous flush ended at, or that the task it runs was given), and on a
 * lost race reads again. Readers following the log page by page always
 * continue at the key `last_seq + 1`; only a resume in the middle of a page
 * needs one look back (lib/execution/request-events.ts).
 */

export interface LoggedEvent<D> {
  seq: number;
  created_at: string;
  data: D;
}

/** Events per page stop at this many bytes of JSON (an item holds 400 KB; a node output at most 300 KB). */
export const EVENT_PAGE_BYTES = 350_000;

/** How long the event log is kept (docs/data-model.md): long enough to resume any stream. */
export const EVENT_RETENTION_SECONDS = 7 * 24 * 60 * 60;

/** The last seq a sort key can hold (`EVENT#` + 10 digits). */
export const MAX_SEQ = 9_999_999_999;

/** Lost races in a row before a flush gives up (the message is redelivered). */
const MAX_ATTEMPTS = 25;

/** The highest seq written so far (0 before any event), from the newest page; `onCapacity` receives its read units. */
export async function lastEventSeq(table: TableRef, requestId: string, onCapacity?: (readUnits: number) => void): Promise<number> {
  const { Items, ConsumedCapacity } = await table.db.send(
    new QueryCommand({
      TableName: table.tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': keys.requestEvent(requestId, 0).pk,
        ':from': keys.requestEvent(requestId, 1).sk,
        ':to': keys.requestEvent(requestId, MAX_SEQ).sk,
      },
      ProjectionExpression: 'last_seq',
      ScanIndexForward: false,
      Limit: 1,
      ConsistentRead: true,
      ...(onCapacity ? { ReturnConsumedCapacity: 'TOTAL' as const } : {}),
    }),
  );
  onCapacity?.(ConsumedCapacity?.CapacityUnits ?? 0);
  return Number(Items?.[0]?.last_seq ?? 0);
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
 * Appends events in order and returns them with their seqs. `nextSeq` is
 * where the caller expects the log to continue; a wrong guess costs one
 * refused put and a read. Events of one call stay in order but may be split
 * around another writer's page.
 */
export async function appendEventPages<D>(table: TableRef, requestId: string, data: readonly D[], nextSeq?: number): Promise<LoggedEvent<D>[]> {
  const written: LoggedEvent<D>[] = [];
  const now = new Date();
  const ttl = ttlFromDate(new Date(now.getTime() + EVENT_RETENTION_SECONDS * 1000));
  let next = nextSeq;
  for (const page of paginate(data)) {
    for (let attempt = 1; ; attempt++) {
      const first = next ?? (await lastEventSeq(table, requestId)) + 1;
      const events = page.map((d, i): LoggedEvent<D> => ({ seq: first + i, created_at: now.toISOString(), data: d }));
      try {
        await table.db.send(
          new PutCommand({
            TableName: table.tableName,
            Item: { ...keys.requestEvent(requestId, first), entity: 'request_event_page', first_seq: first, last_seq: events.at(-1)!.seq, events, ttl },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        written.push(...events);
        next = first + events.length;
        break;
      } catch (error) {
        if (!isConditionFailure(error) || attempt >= MAX_ATTEMPTS) throw error;
        next = undefined;
      }
    }
  }
  return written;
}
