import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { eventsAfter, lastEventSeq } from '#events/pages.js';
import { entityOf } from '#platform/table/items.js';
import { keys } from '#platform/table/keys.js';
import { defaultTable, type TableRef } from '#platform/table/table.js';
import type { NodeExecution, RequestEvent, WorkflowRequest } from './model.js';
import { requestEventLog } from './request-log.js';
import { workflowRequestsRepo } from './workflow-requests-repository.js';

/**
 * The reads of a live stream (lib/execution/request-stream.ts, the source
 * that lib/events/follow.ts follows), with their capacity measured. The event log itself is written by
 * `appendEvents` (lib/events/pages.ts).
 */

/** Receives the cost of every read: `readUnits` as DynamoDB reports it (ReturnConsumedCapacity TOTAL). */
export interface ReadMeter {
  record(operation: 'query' | 'get', readUnits: number): void;
}

/** A request with its event log watermark: the highest `seq` allocated so far (0 before any event). */
export type WatermarkedRequest = WorkflowRequest & { event_seq: number };

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
      const watermark = await lastEventSeq(requestEventLog(table, requestId), (units) => meter?.record('query', units));
      const { Item, ConsumedCapacity } = await db.send(
        new GetCommand({ TableName: tableName, Key: keys.workflowRequest(requestId), ConsistentRead: true, ReturnConsumedCapacity: 'TOTAL' }),
      );
      meter?.record('get', ConsumedCapacity?.CapacityUnits ?? 0);
      if (!Item) return undefined;
      return { ...entityOf<WorkflowRequest>(Item), event_seq: watermark };
    },

    /** Every node execution of the request (the snapshot): strongly consistent Query pages of `NODE#`. */
    async nodes(requestId: string): Promise<NodeExecution[]> {
      return nodesReader.listNodes(requestId, (readUnits) => meter?.record('query', readUnits));
    },

    /** Events with `seq > afterSeq` from at most `limit` pages (lib/events/pages.ts, eventsAfter), each Query metered. */
    async eventsAfter(requestId: string, afterSeq: number, limit: number, aligned: boolean) {
      return eventsAfter<RequestEvent['data']>(requestEventLog(table, requestId), afterSeq, limit, aligned, (units) => meter?.record('query', units));
    },
  };
}

export type RequestEventsReader = ReturnType<typeof requestEventsReader>;
