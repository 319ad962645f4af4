import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { type AppendOptions, appendEvents } from '#events/pages.js';
import { batchPut } from '#platform/table/batch.js';
import { newestFirstPage } from '#platform/table/index-page.js';
import { entityOf } from '#platform/table/items.js';
import { keys } from '#platform/table/keys.js';
import { queryAll } from '#platform/table/queries.js';
import { defaultTable, isConditionFailure, type TableRef } from '#platform/table/table.js';
import type { TransactItem } from '#platform/table/transactions.js';
import { equalityFilter, guardedSet, setFields } from '#platform/table/update-expressions.js';
import {
  type NodeCost,
  type NodeExecution,
  type NodeSettle,
  type NodeStatus,
  outcomeOf,
  type RedriveBase,
  type RequestEvent,
  type RequestOutcome,
  type RequestStatus,
  redriveFields,
  type WorkflowRequest,
} from './model.js';
import { blockedNode, type NodeShape } from './node-skeleton.js';
import { requestEventLog } from './request-log.js';

/**
 * `SET #f = if_not_exists(#f, :f), …` over a node's fields, so a write to a
 * node that has no item yet creates it whole (./node-skeleton.ts). Fields
 * the write itself sets are left out.
 */
function createIfMissing(node: NodeExecution | undefined, written: ReadonlySet<string>) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (!node) return { set: '', names, values };
  const assignments: string[] = [];
  for (const [field, value] of Object.entries({ ...node, entity: 'node_execution' })) {
    // Fan-in marks are only ever added (markParentsDone), never created from a view of them.
    if (value === undefined || field === 'unwritten' || field === 'done_parents' || field === 'activated_by' || written.has(field)) continue;
    names[`#c_${field}`] = field;
    values[`:c_${field}`] = value;
    assignments.push(`#c_${field} = if_not_exists(#c_${field}, :c_${field})`);
  }
  return { set: assignments.join(', '), names, values };
}

/** Node items with the skeleton's nodes that have none yet, built as blocked. */
function withUnwritten(requestId: string, items: Array<Record<string, unknown>>): NodeExecution[] {
  const skeleton = items.find((i) => Array.isArray(i.nodes));
  const nodes = items.filter((i) => i !== skeleton).map((i) => entityOf<NodeExecution>(i));
  if (!skeleton) return nodes;
  const present = new Set(nodes.map((n) => n.node_id));
  const request = { id: requestId, workflow_version_id: String(skeleton.workflow_version_id), created_at: String(skeleton.created_at) };
  for (const [node_id, node_type, parent_count] of skeleton.nodes as Array<[string, string, number]>) {
    if (!present.has(node_id)) nodes.push(blockedNode(request, { node_id, node_type, parent_count }));
  }
  return nodes;
}

export interface TransitionOptions {
  incrementAttempt?: boolean;
  leaseExpiredBefore?: number;
  create?: NodeExecution;
}

/** The conditional update of a node moving between non-terminal states (status guard, lease, attempt, creation of an unwritten node). */
function transitionUpdate(from: readonly NodeStatus[], set: Partial<NodeExecution> & { status: NodeStatus }, options: TransitionOptions) {
  const { names, values, update: setPart, condition: statusCondition } = guardedSet(set, from);
  let condition = statusCondition;
  if (options.leaseExpiredBefore !== undefined) {
    names['#lease'] = 'lease_expires_at';
    values[':leaseNow'] = options.leaseExpiredBefore;
    condition = `(${condition}) AND (attribute_not_exists(#lease) OR #lease < :leaseNow)`;
  }
  const created = createIfMissing(options.create, new Set([...Object.keys(set), ...(options.incrementAttempt ? ['attempt_count'] : [])]));
  const update = `${setPart}${created.set ? `, ${created.set}` : ''}${options.incrementAttempt ? ' ADD attempt_count :one' : ''}`;
  if (options.incrementAttempt) values[':one'] = 1;
  if (created.set) condition = `attribute_not_exists(pk) OR (${condition})`;
  return { update, condition, names: { ...names, ...created.names }, values: { ...values, ...created.values } };
}

/** The sum of one numeric attribute over items (absent counts 0). */
const sumOf = (items: readonly Record<string, unknown>[], attribute: string): number =>
  items.reduce((sum, item) => sum + (typeof item[attribute] === 'number' ? (item[attribute] as number) : 0), 0);

export function workflowRequestsRepo(table: TableRef = defaultTable()) {
  const { db, tableName } = table;

  /** Every item under the request's node prefix (the skeleton included), strongly consistent, all pages. */
  async function queryNodeItems(requestId: string, projection?: string, onCapacity?: (readUnits: number) => void) {
    const prefix = keys.nodeExecutionPrefix(requestId);
    return queryAll(
      db,
      {
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': prefix.pk, ':prefix': prefix.skPrefix },
        ...(projection ? { ProjectionExpression: projection, ExpressionAttributeNames: { '#status': 'status', '#error': 'error' } } : {}),
        ConsistentRead: true,
        ...(onCapacity ? { ReturnConsumedCapacity: 'TOTAL' as const } : {}),
      },
      onCapacity,
    );
  }

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
      return entityOf<Record<string, unknown>>(Attributes ?? {});
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  /** The conditional update of a node's settle (status guard, attempt, creation of an unwritten node). */
  function settleUpdate(
    set: Partial<NodeExecution> & { status: string },
    from: readonly NodeStatus[],
    attempt: number | undefined,
    create: NodeExecution | undefined,
  ) {
    const { names, values, update, condition: statusCondition } = guardedSet(set, from);
    let condition = statusCondition;
    if (attempt !== undefined) {
      names['#attempt'] = 'attempt_count';
      values[':attempt'] = attempt;
      condition += ' AND #attempt = :attempt';
    }
    const created = createIfMissing(create, new Set(Object.keys(set)));
    if (created.set) condition = `attribute_not_exists(pk) OR (${condition})`;
    return {
      UpdateExpression: created.set ? `${update}, ${created.set}` : update,
      ConditionExpression: condition,
      ExpressionAttributeNames: { ...names, ...created.names },
      ExpressionAttributeValues: { ...values, ...created.values },
    };
  }

  return {
    /**
     * The Put of a new request (an id that exists already is refused), for
     * the transaction that starts it (lib/execution/workflow-requests.ts:
     * with its count in the day and, for a root request, its slot of work in
     * progress, marked `concurrency_slot` so its end gives it back).
     */
    requestPut(request: WorkflowRequest, holdsSlot: boolean): TransactItem {
      return {
        Put: {
          TableName: tableName,
          Item: {
            ...keys.workflowRequest(request.id),
            ...keys.workflowRequestIndex(request.account_id, request.created_at, request.id),
            entity: 'workflow_request',
            ...request,
            ...(holdsSlot ? { concurrency_slot: true } : {}),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      };
    },

    /**
     * The node executions that start in a state of their own (entry nodes,
     * nodes skipped from the start) and, for the rest, one skeleton item
     * listing them (./node-skeleton.ts), written once the request exists and
     * before anything is enqueued, so no worker can see a partial request.
     * The skeleton's sort key is the node prefix itself, so every Query of
     * the node items reads it along.
     */
    async putNodes(request: WorkflowRequest, nodes: NodeExecution[], unwritten: NodeShape[] = []): Promise<void> {
      const skeleton =
        unwritten.length > 0
          ? [
              {
                ...keys.nodeSkeleton(request.id),
                entity: 'node_skeleton',
                workflow_version_id: request.workflow_version_id,
                created_at: request.created_at,
                nodes: unwritten.map((n) => [n.node_id, n.node_type, n.parent_count]),
              },
            ]
          : [];
      await batchPut(db, tableName, [
        ...skeleton,
        ...nodes.map((node) => ({ ...keys.nodeExecution(request.id, node.node_id), entity: 'node_execution', ...node })),
      ]);
    },

    async get(requestId: string): Promise<WorkflowRequest | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.workflowRequest(requestId), ConsistentRead: true }));
      return Item ? entityOf<WorkflowRequest>(Item) : undefined;
    },

    async getNode(requestId: string, nodeId: string): Promise<NodeExecution | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.nodeExecution(requestId, nodeId), ConsistentRead: true }));
      return Item ? entityOf<NodeExecution>(Item) : undefined;
    },

    /**
     * Every node execution, strongly consistent and in node id order: the
     * items, and the nodes the skeleton lists that have none yet (blocked).
     * `onCapacity` receives the read units of each page.
     */
    async listNodes(requestId: string, onCapacity?: (readUnits: number) => void): Promise<NodeExecution[]> {
      const items = await queryNodeItems(requestId, undefined, onCapacity);
      return withUnwritten(requestId, items).sort((a, b) => (a.node_id < b.node_id ? -1 : a.node_id > b.node_id ? 1 : 0));
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
      options: TransitionOptions = {},
    ): Promise<NodeExecution | undefined> {
      const { update, condition, names, values } = transitionUpdate(from, set, options);
      return (await guardedUpdate(keys.nodeExecution(requestId, nodeId), update, condition, names, values)) as NodeExecution | undefined;
    },

    /**
     * transitionNode for a caller that has not read the node (a task that
     * says how it stands): the node as the write left it, or, refused, the
     * node as it stands (`current`, undefined when it has no item), sent back
     * with the refusal, so it is never read before a claim.
     */
    async claimNode(
      requestId: string,
      nodeId: string,
      from: readonly NodeStatus[],
      set: Partial<NodeExecution> & { status: NodeStatus },
      options: TransitionOptions = {},
    ): Promise<{ claimed: NodeExecution } | { claimed: undefined; current: NodeExecution | undefined }> {
      const { update, condition, names, values } = transitionUpdate(from, set, options);
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.nodeExecution(requestId, nodeId),
            UpdateExpression: update,
            ConditionExpression: condition,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
            ReturnValues: 'ALL_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return { claimed: entityOf<NodeExecution>(Attributes ?? {}) };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        // The document client leaves the item of a failed condition as DynamoDB sent it, in attribute values.
        const item = (error as { Item?: Parameters<typeof unmarshall>[0] }).Item;
        return { claimed: undefined, current: item ? entityOf<NodeExecution>(unmarshall(item)) : undefined };
      }
    },

    /**
     * Moves a node to a terminal state under a condition on its current
     * status (and attempt): one conditional write. The status is the guard,
     * so a redelivered message can never settle a node twice. Whether the
     * request is done is read afterwards (`outcome`), not counted. A node
     * that called no model costs the flat fee only (`feeMicroUsd`): it is
     * kept on the node (`unrecorded_micro_usd`) and recorded into the
     * windows with the request's end, since a transaction per node would
     * cost a pure node several times its own write.
     */
    async settleUnmetered({ requestId, nodeId, from, set, attempt, create }: NodeSettle, feeMicroUsd = 0): Promise<boolean> {
      const withFee =
        feeMicroUsd > 0
          ? { ...set, usage: { input_tokens: 0, output_tokens: 0, cost_micro_usd: feeMicroUsd, extra_micro_usd: 0 }, unrecorded_micro_usd: feeMicroUsd }
          : set;
      const update = settleUpdate(withFee, from, attempt, create);
      const written = await guardedUpdate(
        keys.nodeExecution(requestId, nodeId),
        update.UpdateExpression,
        update.ConditionExpression,
        update.ExpressionAttributeNames,
        update.ExpressionAttributeValues,
      );
      return written !== undefined;
    },

    /**
     * The items of a settle that records what a model call cost (decisions.md,
     * Money), for the settlement that records it into the usage windows in
     * the same transaction: the node settled with its `usage`, and the cost
     * added to the request's running totals (ADD: never conditional, so
     * concurrent settles of one request only collide). The node's status
     * guard makes the cost recorded once, whatever is redelivered.
     */
    meteredSettleItems({ requestId, nodeId, from, set, attempt, create }: NodeSettle, cost: NodeCost, extraMicroUsd: number): TransactItem[] {
      const usage = { input_tokens: cost.inputTokens, output_tokens: cost.outputTokens, cost_micro_usd: cost.costMicroUsd, extra_micro_usd: extraMicroUsd };
      return [
        { Update: { TableName: tableName, Key: keys.nodeExecution(requestId, nodeId), ...settleUpdate({ ...set, usage }, from, attempt, create) } },
        {
          Update: {
            TableName: tableName,
            Key: keys.workflowRequest(requestId),
            UpdateExpression: 'ADD cost_micro_usd :cost, extra_micro_usd :extra, input_tokens :in, output_tokens :out',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':cost': cost.costMicroUsd, ':extra': extraMicroUsd, ':in': cost.inputTokens, ':out': cost.outputTokens },
          },
        },
      ];
    },

    /**
     * What the node states say about the request: `open` while any node is
     * open, else the outcome (a failed node fails it, a stopped one means it
     * was stopped). Strongly consistent and read after the caller's own
     * settle: of two nodes settling at once, the one whose write lands last
     * sees the other's, so the request is always finished by someone, and
     * every reader agrees on the outcome.
     */
    async outcome(requestId: string): Promise<RequestOutcome> {
      return outcomeOf(withUnwritten(requestId, await queryNodeItems(requestId, '#status, #error, node_id, nodes, unrecorded_micro_usd')));
    },

    /**
     * Records that `parentIds` are settled for `childId` (and which of them
     * activated it), in one write however many settled. String sets make this
     * idempotent under redelivery. Returns the child as it now stands.
     */
    async markParentsDone(requestId: string, child: NodeExecution, parentIds: string[], activatedIds: string[]): Promise<NodeExecution> {
      // The child as it would be built if it has no item yet: this write then creates it.
      const created = createIfMissing(child.unwritten ? child : undefined, new Set(['done_parents', 'activated_by']));
      const { Attributes } = await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.nodeExecution(requestId, child.node_id),
          UpdateExpression: `${created.set ? `SET ${created.set} ` : ''}${activatedIds.length > 0 ? 'ADD done_parents :p, activated_by :a' : 'ADD done_parents :p'}`,
          ...(created.set ? {} : { ConditionExpression: 'attribute_exists(pk)' }),
          ...(created.set ? { ExpressionAttributeNames: created.names } : {}),
          ExpressionAttributeValues: { ...created.values, ':p': new Set(parentIds), ...(activatedIds.length > 0 ? { ':a': new Set(activatedIds) } : {}) },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return entityOf<NodeExecution>(Attributes ?? {});
    },

    /** The flat fees its settled nodes keep until the request's end records them (settleNode's `unrecorded_micro_usd`). */
    async unrecordedFees(requestId: string): Promise<number> {
      return sumOf(await queryNodeItems(requestId, '#status, #error, unrecorded_micro_usd'), 'unrecorded_micro_usd');
    },

    /**
     * The Update that ends a request, for the settlement that ends it
     * (lib/execution/end-request.ts): `set` on condition that the status is
     * still one of `from`, the fees its nodes left to the end added to its
     * totals (`fees`, of which `feesExtra` extra-funded), its slot mark
     * removed when it held one: given back once, even by a request that is
     * ended again.
     */
    endUpdate(
      current: WorkflowRequest,
      from: readonly RequestStatus[],
      set: Partial<WorkflowRequest> & { status: RequestStatus },
      fees: number,
      feesExtra: number,
    ): TransactItem {
      const guarded = guardedSet(set, from);
      const adds = fees > 0 ? ' ADD cost_micro_usd :fees, extra_micro_usd :fees_extra' : '';
      return {
        Update: {
          TableName: tableName,
          Key: keys.workflowRequest(current.id),
          UpdateExpression: `${guarded.update}${adds}${current.concurrency_slot === true ? ' REMOVE concurrency_slot' : ''}`,
          ConditionExpression: guarded.condition,
          ExpressionAttributeNames: guarded.names,
          ExpressionAttributeValues: { ...guarded.values, ...(fees > 0 ? { ':fees': fees, ':fees_extra': feesExtra } : {}) },
        },
      };
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
     * Appends events to the request's ordered event log (lib/events/pages.ts):
     * conditional page writes, no counter. `nextSeq` is where the caller
     * expects the log to continue, when it knows; `options.identity` when
     * another delivery may have logged some of them already (emit.ts).
     */
    async appendEvents(
      requestId: string,
      data: Array<RequestEvent['data']>,
      nextSeq?: number,
      options?: AppendOptions<RequestEvent['data']>,
    ): Promise<RequestEvent[]> {
      return appendEvents(requestEventLog(table, requestId), data, nextSeq, options);
    },

    async appendEvent(requestId: string, data: RequestEvent['data']): Promise<RequestEvent> {
      return (await this.appendEvents(requestId, [data]))[0]!;
    },

    /**
     * Keeps the node executions a redrive replaces (lib/execution/redrive.ts)
     * under that redrive's number, for the request's history. Written before
     * they are replaced, and the same again if a redrive is retried.
     */
    async keepRedriven(requestId: string, redrive: number, nodes: readonly NodeExecution[]): Promise<void> {
      await batchPut(
        db,
        tableName,
        nodes.map(({ unwritten: _, ...node }) => ({
          ...keys.redrivenNodeExecution(requestId, redrive, node.node_id),
          entity: 'redriven_node_execution',
          ...node,
        })),
      );
    },

    /** The executions redrives replaced, in the order they were replaced (by redrive, then node id). */
    async redrivenNodes(requestId: string): Promise<NodeExecution[]> {
      const prefix = keys.redrivenNodeExecutionPrefix(requestId);
      const items = await queryAll(db, {
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': prefix.pk, ':prefix': prefix.skPrefix },
        ConsistentRead: true,
      });
      return items.map((item) => entityOf<NodeExecution>(item));
    },

    /**
     * Replaces a node execution by the one a redrive makes of it (a Put of
     * the whole item), on condition that it is still the execution `current`
     * read: the same id in the same status (or no item, for one never
     * written). False when it was not: another redrive replaced it first.
     */
    async replaceNode(requestId: string, current: NodeExecution, next: NodeExecution): Promise<boolean> {
      const { unwritten: _, ...item } = next;
      try {
        await db.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...keys.nodeExecution(requestId, next.node_id), entity: 'node_execution', ...item },
            ConditionExpression: current.unwritten ? 'attribute_not_exists(pk)' : '#id = :id AND #status = :status',
            ...(current.unwritten
              ? {}
              : {
                  ExpressionAttributeNames: { '#id': 'id', '#status': 'status' },
                  ExpressionAttributeValues: { ':id': current.id, ':status': current.status },
                }),
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },

    /**
     * The Update that moves an ended request back to `in_progress` for its
     * redrive number `redrive`, for the transaction that starts it again
     * (lib/execution/workflow-requests.ts): on condition that it is still
     * `failed` or `stopped` after `redrive - 1` redrives, so of two redrives
     * at once one starts it. `holdsSlot`: it takes a slot of work in
     * progress again, which its next end gives back.
     */
    redriveUpdate(request: WorkflowRequest, redrive: number, base: RedriveBase, holdsSlot: boolean, at: string): TransactItem {
      const { names, values, update } = setFields({ ...redriveFields(request, redrive, base, at), ...(holdsSlot ? { concurrency_slot: true } : {}) });
      const before = redrive - 1;
      return {
        Update: {
          TableName: tableName,
          Key: keys.workflowRequest(request.id),
          UpdateExpression: update,
          ConditionExpression:
            before === 0
              ? '#status IN (:failed, :stopped) AND attribute_not_exists(#redrive_count)'
              : '#status IN (:failed, :stopped) AND #redrive_count = :before',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ...values, ':failed': 'failed', ':stopped': 'stopped', ...(before === 0 ? {} : { ':before': before }) },
        },
      };
    },

    /** An account's requests, newest first, with optional filters. */
    async list(
      accountId: string,
      filters: { chat_id?: string; workflow_id?: string; status?: RequestStatus },
      options: { limit: number; after?: { gsi1sk: string; pk: string; sk: string } },
    ) {
      const page = await newestFirstPage(db, tableName, keys.workflowRequestIndexPartition(accountId), equalityFilter(filters), options);
      return { requests: page.items.map((item) => entityOf<WorkflowRequest>(item)), next: page.next };
    },
  };
}

export type WorkflowRequestsRepo = ReturnType<typeof workflowRequestsRepo>;
