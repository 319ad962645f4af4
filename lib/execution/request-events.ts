import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#platform/table/keys.js';
import { defaultTable, type TableRef } from '#platform/table/table.js';
import { lastEventSeq, MAX_SEQ } from './event-pages.js';
import { type NodeExecution, type RequestEvent, type WorkflowRequest, workflowRequestsRepo } from './workflow-requests-repository.js';

/**
 * The reads of a live stream (lib/execution/request-stream.ts, the source
 * that lib/events/follow.ts follows), with their capacity measured. The event log itself is written by
 * `appendEvents` (lib/execution/event-pages.ts).
 */

/** Receives the cost of every read: `readUnits` as DynamoDB reports it (ReturnConsumedCapacity TOTAL). */
export interface ReadMeter {
  record(operation: 'query' | 'get', readUnits: number): void;
}

/** A request with its event log watermark: the highest `seq` allocated so far (0 before any event). */
export type WatermarkedRequest = WorkflowRequest & { event_seq: number };

const strip = (item: Record<string, unknown>): Record<string, unknown> => {
  const { pk: _pk, sk: _sk, gsi1pk: _g1, gsi1sk: _g2, entity: _e, ...rest } = item;
  return rest;
};

export function requestEventsReader(table: TableRef = defaultTable(), meter?: ReadMeter) {
  const { db, tableName } = table;
  const nodesReader = workflowRequestsRepo(table);

  /** One Query of event pages keyed from `from` to `to` whose TTL has not passed. */
  async function eventPageQuery(requestId: string, range: { from: number; to: number; now: number; limit: number; backwards?: boolean }) {
    const { Items, LastEvaluatedKey, ConsumedCapacity } = await db.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        FilterExpression: '#ttl > :now',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':pk': keys.requestEvent(requestId, 0).pk,
          ':from': keys.requestEvent(requestId, range.from).sk,
          ':to': keys.requestEvent(requestId, range.to).sk,
          ':now': range.now,
        },
        ScanIndexForward: !range.backwards,
        Limit: range.limit,
        ConsistentRead: true,
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    meter?.record('query', ConsumedCapacity?.CapacityUnits ?? 0);
    return { items: (Items ?? []) as Record<string, unknown>[], complete: LastEvaluatedKey === undefined };
  }

  return {
    /**
     * The request and its `event_seq` watermark from one strongly consistent
     * GetItem, so the watermark and the state belong together: every event
     * with a seq up to the watermark describes a change this state already
     * shows (the engine changes state first, then appends the event).
     */
    async requestWithWatermark(requestId: string): Promise<WatermarkedRequest | undefined> {
      // The watermark is read first, the state after it: the state then
      // shows at least every change whose event is at or below the watermark.
      const watermark = await lastEventSeq(table, requestId, (units) => meter?.record('query', units));
      const { Item, ConsumedCapacity } = await db.send(
        new GetCommand({ TableName: tableName, Key: keys.workflowRequest(requestId), ConsistentRead: true, ReturnConsumedCapacity: 'TOTAL' }),
      );
      meter?.record('get', ConsumedCapacity?.CapacityUnits ?? 0);
      if (!Item) return undefined;
      const request = strip(Item) as unknown as WatermarkedRequest;
      return { ...request, event_seq: watermark };
    },

    /** Every node execution of the request (the snapshot): strongly consistent Query pages of `NODE#`. */
    async nodes(requestId: string): Promise<NodeExecution[]> {
      return nodesReader.listNodes(requestId, (readUnits) => meter?.record('query', readUnits));
    },

    /**
     * Events with `seq > afterSeq`, in order, from at most `limit` pages:
     * strongly consistent Queries bounded to the `EVENT#` range, so they never
     * read the request's node items. Pages are keyed by their first seq
     * (./event-pages.ts): when `afterSeq` ends a page (`aligned`), the next
     * page is keyed `afterSeq + 1` and one forward Query finds everything;
     * otherwise the page holding `afterSeq + 1` starts before it and is
     * looked up first. Expired events (TTL passed, not yet deleted) are
     * filtered out. `complete` is false when more events may follow; `pageEnd`
     * is the last seq of the last page read (a seq that is `aligned`).
     */
    async eventsAfter(
      requestId: string,
      afterSeq: number,
      limit: number,
      aligned: boolean,
    ): Promise<{ events: RequestEvent[]; complete: boolean; pageEnd?: number }> {
      if (afterSeq >= MAX_SEQ) return { events: [], complete: true };
      const now = Math.floor(Date.now() / 1000);
      const pages: Record<string, unknown>[] = [];
      let from = afterSeq + 1;
      if (!aligned && afterSeq > 0) {
        const [holding] = (await eventPageQuery(requestId, { from: 1, to: afterSeq, now, limit: 1, backwards: true })).items;
        if (holding && Number(holding.last_seq) > afterSeq) {
          pages.push(holding);
          from = Number(holding.last_seq) + 1;
        }
      }
      const forward = await eventPageQuery(requestId, { from, to: MAX_SEQ, now, limit });
      pages.push(...forward.items);
      const events = pages
        .flatMap((page) => page.events as RequestEvent[])
        .map((e) => ({ seq: Number(e.seq), created_at: e.created_at, data: e.data }))
        .filter((e) => e.seq > afterSeq)
        .sort((a, b) => a.seq - b.seq);
      const last = pages.at(-1);
      return { events, complete: forward.complete, ...(last ? { pageEnd: Number(last.last_seq) } : {}) };
    },
  };
}

export type RequestEventsReader = ReturnType<typeof requestEventsReader>;
