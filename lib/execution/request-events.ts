import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#platform/table/keys.js';
import { defaultTable, type TableRef } from '#platform/table/table.js';
import { type NodeExecution, type RequestEvent, type WorkflowRequest, workflowRequestsRepo } from './workflow-requests-repository.js';

/**
 * The reads of a live stream (lib/execution/request-stream.ts, the source
 * that lib/events/follow.ts follows), with their capacity measured. The event log itself is written by
 * `appendEvent` in lib/execution/workflow-requests-repository.ts.
 */

/** Receives the cost of every read: `readUnits` as DynamoDB reports it (ReturnConsumedCapacity TOTAL). */
export interface ReadMeter {
  record(operation: 'query' | 'get', readUnits: number): void;
}

/** A request with its event log watermark: the highest `seq` allocated so far (0 before any event). */
export type WatermarkedRequest = WorkflowRequest & { event_seq: number };

/** The last seq a sort key can hold (`EVENT#` + 10 digits). */
const MAX_SEQ = 9_999_999_999;

const strip = (item: Record<string, unknown>): Record<string, unknown> => {
  const { pk: _pk, sk: _sk, gsi1pk: _g1, gsi1sk: _g2, entity: _e, ...rest } = item;
  return rest;
};

export function requestEventsReader(table: TableRef = defaultTable(), meter?: ReadMeter) {
  const { db, tableName } = table;
  const nodesReader = workflowRequestsRepo(table);
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
      const counter = await db.send(
        new GetCommand({ TableName: tableName, Key: keys.requestEventSeq(requestId), ConsistentRead: true, ReturnConsumedCapacity: 'TOTAL' }),
      );
      meter?.record('get', counter.ConsumedCapacity?.CapacityUnits ?? 0);
      const { Item, ConsumedCapacity } = await db.send(
        new GetCommand({ TableName: tableName, Key: keys.workflowRequest(requestId), ConsistentRead: true, ReturnConsumedCapacity: 'TOTAL' }),
      );
      meter?.record('get', ConsumedCapacity?.CapacityUnits ?? 0);
      if (!Item) return undefined;
      const request = strip(Item) as unknown as WatermarkedRequest;
      return { ...request, event_seq: Number(counter.Item?.event_seq ?? 0) };
    },

    /** Every node execution of the request (the snapshot): strongly consistent Query pages of `NODE#`. */
    async nodes(requestId: string): Promise<NodeExecution[]> {
      return nodesReader.listNodes(requestId, (readUnits) => meter?.record('query', readUnits));
    },

    /**
     * Events with `seq > afterSeq`, in order, at most `limit`: one strongly
     * consistent Query bounded to the `EVENT#` range, so it never reads the
     * request's node items (which sort after it in the same partition).
     * Expired events (TTL passed, not yet deleted) are filtered out.
     * `complete` is false when more events may follow the page.
     */
    async eventsAfter(requestId: string, afterSeq: number, limit: number): Promise<{ events: RequestEvent[]; complete: boolean }> {
      if (afterSeq >= MAX_SEQ) return { events: [], complete: true };
      const { Items, LastEvaluatedKey, ConsumedCapacity } = await db.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          FilterExpression: '#ttl > :now',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: {
            ':pk': keys.requestEvent(requestId, 0).pk,
            ':from': keys.requestEvent(requestId, afterSeq + 1).sk,
            ':to': keys.requestEvent(requestId, MAX_SEQ).sk,
            ':now': Math.floor(Date.now() / 1000),
          },
          Limit: limit,
          ConsistentRead: true,
          ReturnConsumedCapacity: 'TOTAL',
        }),
      );
      meter?.record('query', ConsumedCapacity?.CapacityUnits ?? 0);
      // Items are pages of consecutive events keyed by their last seq (appendEvents), or single events.
      const events = (Items ?? [])
        .flatMap((i) =>
          Array.isArray(i.events)
            ? (i.events as RequestEvent[])
            : [{ seq: Number(i.seq), created_at: i.created_at as string, data: i.data as RequestEvent['data'] }],
        )
        .map((e) => ({ seq: Number(e.seq), created_at: e.created_at, data: e.data }))
        .filter((e) => e.seq > afterSeq)
        .sort((a, b) => a.seq - b.seq);
      return { events, complete: LastEvaluatedKey === undefined };
    },
  };
}

export type RequestEventsReader = ReturnType<typeof requestEventsReader>;
