import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchPut } from '#platform/table/batch.js';
import { newestFirstPage } from '#platform/table/index-page.js';
import { keys, ttlFromDate } from '#platform/table/keys.js';
import { defaultTable, isConditionFailure, type TableRef } from '#platform/table/table.js';
import { equalityFilter, guardedSet } from '#platform/table/update-expressions.js';

export const REQUEST_TERMINAL = ['completed', 'failed', 'stopped'] as const;
export const NODE_TERMINAL = ['completed', 'failed', 'skipped', 'stopped'] as const;
export type RequestStatus = 'pending' | 'in_progress' | 'waiting' | (typeof REQUEST_TERMINAL)[number];
export type NodeStatus = 'pending' | 'in_progress' | 'blocked' | 'waiting' | (typeof NODE_TERMINAL)[number];
export const isTerminalNode = (status: unknown): boolean => (NODE_TERMINAL as readonly unknown[]).includes(status);
export const isTerminalRequest = (status: unknown): boolean => (REQUEST_TERMINAL as readonly unknown[]).includes(status);

/** Events per page item stop at this many bytes of JSON (an item holds 400 KB; a node output at most 300 KB). */
export const EVENT_PAGE_BYTES = 350_000;

/** How long the event log is kept (docs/data-model.md): long enough to resume any stream. */
export const EVENT_RETENTION_SECONDS = 7 * 24 * 60 * 60;

export interface FailureInfo {
  code: string;
  message: string;
}

export interface WorkflowRequest {
  id: string;
  account_id: string;
  workflow_id: string;
  workflow_version_id: string;
  entry_node_ids: string[];
  user_id: string;
  billing_user_id: string | null;
  parent_node_execution_id: string | null;
  parent_workflow_request_id: string;
  chat_id: string | null;
  status: RequestStatus;
  payload: Record<string, unknown>;
  query: string | null;
  metadata: Record<string, unknown> | null;
  error: FailureInfo | null;
  started_at: string | null;
  completed_at: string | null;
  created_at: string;
  node_count: number;
  /** Internal: the node of the parent request this child runs for, and how deep it is nested. */
  parent_node_id?: string | null;
  depth?: number;
}

export interface NodeExecution {
  id: string;
  workflow_request_id: string;
  node_id: string;
  node_type: string;
  workflow_version_id: string;
  status: NodeStatus;
  input_data: Record<string, unknown> | null;
  output_data: unknown;
  attempt_count: number;
  error: FailureInfo | null;
  parent_count: number;
  done_parents?: Set<string>;
  activated_by?: Set<string>;
  lease_expires_at?: number;
  /** Set on a `workflow` node once it has started its child request. */
  child_request_id?: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  failed_at: string | null;
}

export interface RequestEvent {
  seq: number;
  created_at: string;
  data: { workflow_request?: Record<string, unknown>; node_execution?: Record<string, unknown> };
}

const strip = <T extends Record<string, unknown>>(item: T): T => {
  const { pk: _pk, sk: _sk, gsi1pk: _g1, gsi1sk: _g2, entity: _e, event_seq: _s, ...rest } = item;
  return rest as T;
};

export function workflowRequestsRepo(table: TableRef = defaultTable()) {
  const { db, tableName } = table;

  /** A conditional UpdateItem: the new item, or undefined when the condition failed. */
  async function guardedUpdate(
    key: Record<string, string>,
    update: string,
    condition: string,
    names: Record<string, string>,
    values: Record<string, unknown>,
  ): Promise<Record<string, unknown> | undefined> {
    try {
      const { Attributes } = await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: key,
          UpdateExpression: update,
          ConditionExpression: condition,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return strip(Attributes ?? {});
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  return {
    /**
     * Writes the request and every node execution before anything is
     * enqueued, so no worker can see a partial request.
     */
    async create(request: WorkflowRequest, nodes: NodeExecution[]): Promise<void> {
      await db.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            ...keys.workflowRequest(request.id),
            ...keys.workflowRequestIndex(request.account_id, request.created_at, request.id),
            entity: 'workflow_request',
            ...request,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      await batchPut(
        db,
        tableName,
        nodes.map((node) => ({ ...keys.nodeExecution(request.id, node.node_id), entity: 'node_execution', ...node })),
      );
    },

    async get(requestId: string): Promise<WorkflowRequest | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.workflowRequest(requestId), ConsistentRead: true }));
      return Item ? strip(Item as WorkflowRequest & Record<string, unknown>) : undefined;
    },

    async getNode(requestId: string, nodeId: string): Promise<NodeExecution | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.nodeExecution(requestId, nodeId), ConsistentRead: true }));
      return Item ? strip(Item as NodeExecution & Record<string, unknown>) : undefined;
    },

    /** Every node execution, strongly consistent; `onCapacity` receives the read units of each page. */
    async listNodes(requestId: string, onCapacity?: (readUnits: number) => void): Promise<NodeExecution[]> {
      const prefix = keys.nodeExecutionPrefix(requestId);
      const nodes: NodeExecution[] = [];
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await db.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
            ExpressionAttributeValues: { ':pk': prefix.pk, ':prefix': prefix.skPrefix },
            ExclusiveStartKey: startKey,
            ConsistentRead: true,
            ...(onCapacity ? { ReturnConsumedCapacity: 'TOTAL' as const } : {}),
          }),
        );
        onCapacity?.(page.ConsumedCapacity?.CapacityUnits ?? 0);
        nodes.push(...(page.Items ?? []).map((i) => strip(i as NodeExecution & Record<string, unknown>)));
        startKey = page.LastEvaluatedKey;
      } while (startKey);
      return nodes;
    },

    /**
     * Moves a node between non-terminal states under a condition on its
     * current status (and attempt, when given). False when the condition
     * failed: another delivery got there first.
     */
    async transitionNode(
      requestId: string,
      nodeId: string,
      from: readonly NodeStatus[],
      set: Partial<NodeExecution> & { status: NodeStatus },
      options: { incrementAttempt?: boolean; leaseExpiredBefore?: number } = {},
    ): Promise<NodeExecution | undefined> {
      const { names, values, update: setPart, condition: statusCondition } = guardedSet(set, from);
      let condition = statusCondition;
      if (options.leaseExpiredBefore !== undefined) {
        names['#lease'] = 'lease_expires_at';
        values[':leaseNow'] = options.leaseExpiredBefore;
        condition = `(${condition}) AND (attribute_not_exists(#lease) OR #lease < :leaseNow)`;
      }
      const update = `${setPart}${options.incrementAttempt ? ' ADD attempt_count :one' : ''}`;
      if (options.incrementAttempt) values[':one'] = 1;
      return (await guardedUpdate(keys.nodeExecution(requestId, nodeId), update, condition, names, values)) as NodeExecution | undefined;
    },

    /**
     * Moves a node to a terminal state under a condition on its current
     * status (and attempt): one conditional write. The status is the guard,
     * so a redelivered message can never settle a node twice. Whether the
     * request is done is read afterwards (`outcome`), not counted.
     */
    async settleNode(
      requestId: string,
      nodeId: string,
      from: readonly NodeStatus[],
      set: Partial<NodeExecution> & { status: (typeof NODE_TERMINAL)[number] },
      attempt?: number,
    ): Promise<boolean> {
      const { names, values, update, condition: statusCondition } = guardedSet(set, from);
      let condition = statusCondition;
      if (attempt !== undefined) {
        names['#attempt'] = 'attempt_count';
        values[':attempt'] = attempt;
        condition += ' AND #attempt = :attempt';
      }
      return (await guardedUpdate(keys.nodeExecution(requestId, nodeId), update, condition, names, values)) !== undefined;
    },

    /**
     * What the node states say about the request: `open` while any node is
     * open, else the outcome (a failed node fails it, a stopped one means it
     * was stopped). Strongly consistent and read after the caller's own
     * settle: of two nodes settling at once, the one whose write lands last
     * sees the other's, so the request is always finished by someone, and
     * every reader agrees on the outcome.
     */
    async outcome(requestId: string): Promise<{ state: 'open' } | { state: 'completed' | 'stopped' } | { state: 'failed'; error: FailureInfo }> {
      const prefix = keys.nodeExecutionPrefix(requestId);
      let startKey: Record<string, unknown> | undefined;
      let failed: FailureInfo | undefined;
      let stopped = false;
      do {
        const page = await db.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
            ProjectionExpression: '#status, #error, node_id',
            ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
            ExpressionAttributeValues: { ':pk': prefix.pk, ':prefix': prefix.skPrefix },
            ExclusiveStartKey: startKey,
            ConsistentRead: true,
          }),
        );
        for (const item of page.Items ?? []) {
          const status = item.status as NodeStatus;
          if (!(NODE_TERMINAL as readonly string[]).includes(status)) return { state: 'open' };
          if (status === 'failed') failed ??= (item.error as FailureInfo | null) ?? { code: 'node_failed', message: `Node ${String(item.node_id)} failed.` };
          if (status === 'stopped') stopped = true;
        }
        startKey = page.LastEvaluatedKey;
      } while (startKey);
      if (failed) return { state: 'failed', error: failed };
      return { state: stopped ? 'stopped' : 'completed' };
    },

    /**
     * Records that `parentIds` are settled for `childId` (and which of them
     * activated it), in one write however many settled. String sets make this
     * idempotent under redelivery. Returns the child as it now stands.
     */
    async markParentsDone(requestId: string, childId: string, parentIds: string[], activatedIds: string[]): Promise<NodeExecution> {
      const { Attributes } = await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.nodeExecution(requestId, childId),
          UpdateExpression: activatedIds.length > 0 ? 'ADD done_parents :p, activated_by :a' : 'ADD done_parents :p',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':p': new Set(parentIds), ...(activatedIds.length > 0 ? { ':a': new Set(activatedIds) } : {}) },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return strip(Attributes as NodeExecution & Record<string, unknown>);
    },

    async transitionRequest(
      requestId: string,
      from: readonly RequestStatus[],
      set: Partial<WorkflowRequest> & { status: RequestStatus },
    ): Promise<WorkflowRequest | undefined> {
      const { names, values, update, condition } = guardedSet(set, from);
      return (await guardedUpdate(keys.workflowRequest(requestId), update, condition, names, values)) as WorkflowRequest | undefined;
    },

    /**
     * Appends events to the request's ordered event log: one atomic
     * `ADD event_seq :n` on the request's counter item reserves a contiguous
     * range of sequence numbers, then the events are written as pages: one
     * item holds as many consecutive events as fit in PAGE_BYTES and is keyed
     * by its last `seq`, so a flush of many small events costs a write unit
     * per kilobyte rather than one per event. A writer that dies in between
     * leaves a hole, which readers skip after a grace period
     * (lib/execution/stream.ts).
     */
    async appendEvents(requestId: string, data: Array<RequestEvent['data']>): Promise<RequestEvent[]> {
      if (data.length === 0) return [];
      const { Attributes } = await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.requestEventSeq(requestId),
          UpdateExpression: 'ADD event_seq :n',
          ExpressionAttributeValues: { ':n': data.length },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      const first = Number(Attributes?.event_seq) - data.length + 1;
      const now = new Date();
      const ttl = ttlFromDate(new Date(now.getTime() + EVENT_RETENTION_SECONDS * 1000));
      const events = data.map((d, i): RequestEvent => ({ seq: first + i, created_at: now.toISOString(), data: d }));
      const pages: RequestEvent[][] = [];
      let size = 0;
      for (const event of events) {
        const bytes = Buffer.byteLength(JSON.stringify(event));
        if (pages.length === 0 || size + bytes > EVENT_PAGE_BYTES) {
          pages.push([]);
          size = 0;
        }
        pages.at(-1)!.push(event);
        size += bytes;
      }
      await batchPut(
        db,
        tableName,
        pages.map((page) => ({
          ...keys.requestEvent(requestId, page.at(-1)!.seq),
          entity: 'request_event_page',
          first_seq: page[0]!.seq,
          last_seq: page.at(-1)!.seq,
          events: page,
          ttl,
        })),
      );
      return events;
    },

    async appendEvent(requestId: string, data: RequestEvent['data']): Promise<RequestEvent> {
      return (await this.appendEvents(requestId, [data]))[0]!;
    },

    /** An account's requests, newest first, with optional filters. */
    async list(
      accountId: string,
      filters: { chat_id?: string; workflow_id?: string; status?: RequestStatus },
      options: { limit: number; after?: { gsi1sk: string; pk: string; sk: string } },
    ) {
      const page = await newestFirstPage(db, tableName, keys.workflowRequestIndexPartition(accountId), equalityFilter(filters), options);
      return { requests: page.items.map((item) => strip(item as WorkflowRequest & Record<string, unknown>)), next: page.next };
    },
  };
}

export type WorkflowRequestsRepo = ReturnType<typeof workflowRequestsRepo>;
