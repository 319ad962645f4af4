import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { acquireSlot, concurrencyRefusal, refusedSlot, releaseSlot } from '#accounts/index.js';
import { activityUpdate, billing, ENTRY_ITEM_COUNT, transactionIdFor, utcDay } from '#billing/index.js';
import { type AccountEvent, accountEventPut } from '#events/account-events.js';
import { appendEvents } from '#events/pages.js';
import { logger } from '#platform/observability/logger.js';
import { batchPut } from '#platform/table/batch.js';
import { newestFirstPage } from '#platform/table/index-page.js';
import { keys } from '#platform/table/keys.js';
import { queryAll } from '#platform/table/queries.js';
import { cancellationReasons, defaultTable, isConditionFailure, isRefusedForContent, nowIso, type TableRef } from '#platform/table/table.js';
import { type TransactItem, transactWrite } from '#platform/table/transactions.js';
import { equalityFilter, guardedSet } from '#platform/table/update-expressions.js';
import { type UsageMeter, usageMeter } from '#usage/index.js';
import {
  type NODE_TERMINAL,
  type NodeExecution,
  type NodeStatus,
  outcomeOf,
  type RequestEvent,
  type RequestOutcome,
  type RequestStatus,
  type WorkflowRequest,
} from './model.js';
import { blockedNode, type NodeShape } from './node-skeleton.js';
import { requestEventLog } from './request-log.js';

export { EVENT_PAGE_BYTES } from '#events/pages.js';
export {
  type FailureInfo,
  isTerminalNode,
  isTerminalRequest,
  NODE_TERMINAL,
  type NodeExecution,
  type NodeStatus,
  REQUEST_TERMINAL,
  type RequestEvent,
  type RequestStatus,
  type WorkflowRequest,
} from './model.js';
export { EVENT_RETENTION_SECONDS } from './request-log.js';

const strip = <T extends Record<string, unknown>>(item: T): T => {
  const { pk: _pk, sk: _sk, gsi1pk: _g1, gsi1sk: _g2, entity: _e, ...rest } = item;
  return rest as T;
};

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
  const nodes = items.filter((i) => i !== skeleton).map((i) => strip(i) as unknown as NodeExecution);
  if (!skeleton) return nodes;
  const present = new Set(nodes.map((n) => n.node_id));
  const request = { id: requestId, workflow_version_id: String(skeleton.workflow_version_id), created_at: String(skeleton.created_at) };
  for (const [node_id, node_type, parent_count] of skeleton.nodes as Array<[string, string, number]>) {
    if (!present.has(node_id)) nodes.push(blockedNode(request, { node_id, node_type, parent_count }));
  }
  return nodes;
}

/** What a node execution used, recorded by its settle (lib/platform/config/prices.ts prices it). */
export interface NodeCost {
  accountId: string;
  costMicroUsd: number;
  inputTokens: number;
  outputTokens: number;
}

/** The sum of one numeric attribute over items (absent counts 0). */
const sumOf = (items: readonly Record<string, unknown>[], attribute: string): number =>
  items.reduce((sum, item) => sum + (typeof item[attribute] === 'number' ? (item[attribute] as number) : 0), 0);

/** Settles refused only by a usage window opened meanwhile, tried again on a fresh read, before giving up. */
const METERED_ATTEMPTS = 5;

/** The failure of a request whose end DynamoDB refused for what it holds, written instead of that end. */
const unrecordableEnd = (status: RequestStatus) => ({
  code: 'internal_error',
  message: `The request’s end (${status}) could not be recorded: its payload or metadata is nested deeper or larger than can be stored. It failed instead.`,
});

/** The id of a workflow request's one debit. */
export const requestDebitId = (requestId: string): string => transactionIdFor(`debit:workflow_request:${requestId}`);

export function workflowRequestsRepo(table: TableRef = defaultTable(), meter: Pick<UsageMeter, 'record'> = usageMeter(table)) {
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
      return strip(Attributes ?? {});
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

  /**
   * A settle that records what the execution cost (decisions.md, Money), in
   * one transaction: the node settled with its `usage`, the cost added to
   * the account's usage windows (lib/usage), and to the request's running
   * totals (ADD: never conditional, so concurrent settles of one request
   * only collide, and collisions are retried). The node's status guard makes
   * the cost recorded once, whatever is redelivered. Refused by the windows
   * item alone (a window opened meanwhile), it reads them again and retries.
   */
  async function settleMetered(
    requestId: string,
    nodeId: string,
    from: readonly NodeStatus[],
    set: Partial<NodeExecution> & { status: (typeof NODE_TERMINAL)[number] },
    attempt: number | undefined,
    create: NodeExecution | undefined,
    cost: NodeCost,
  ): Promise<boolean> {
    for (let round = 1; ; round++) {
      const { item, extraMicroUsd } = await meter.record(cost.accountId, cost.costMicroUsd);
      const usage = { input_tokens: cost.inputTokens, output_tokens: cost.outputTokens, cost_micro_usd: cost.costMicroUsd, extra_micro_usd: extraMicroUsd };
      try {
        await transactWrite(db, {
          TransactItems: [
            { Update: { TableName: tableName, Key: keys.nodeExecution(requestId, nodeId), ...settleUpdate({ ...set, usage }, from, attempt, create) } },
            item,
            {
              Update: {
                TableName: tableName,
                Key: keys.workflowRequest(requestId),
                UpdateExpression: 'ADD cost_micro_usd :cost, extra_micro_usd :extra, input_tokens :in, output_tokens :out',
                ConditionExpression: 'attribute_exists(pk)',
                ExpressionAttributeValues: { ':cost': cost.costMicroUsd, ':extra': extraMicroUsd, ':in': cost.inputTokens, ':out': cost.outputTokens },
              },
            },
          ],
        });
        return true;
      } catch (error) {
        const reasons = cancellationReasons(error);
        if (!reasons) throw error;
        if (reasons[0]?.Code === 'ConditionalCheckFailed') return false;
        if (reasons[1]?.Code === 'ConditionalCheckFailed' && round < METERED_ATTEMPTS) continue;
        throw error;
      }
    }
  }

  return {
    /**
     * Writes the request, the node executions that start in a state of their
     * own (entry nodes, nodes skipped from the start) and, for the rest, one
     * skeleton item listing them (./node-skeleton.ts), before anything is
     * enqueued, so no worker can see a partial request. The skeleton's sort
     * key is the node prefix itself, so every Query of the node items reads
     * it along. The request is put in one transaction with its count in the
     * account's daily activity (`request_count` of its creation day), so a
     * request is counted exactly when it exists; an id that exists already
     * is refused (the error is thrown as it is) and counted no second time.
     * With a `concurrencyLimit` (a root request) the same transaction takes
     * one of the account's slots of work in progress (lib/accounts,
     * acquireSlot) and marks the request as holding it (`concurrency_slot`),
     * so endRequest gives it back; with the account at its limit nothing is
     * written and the answer is 429 `rate_limited`.
     */
    async create(request: WorkflowRequest, nodes: NodeExecution[], unwritten: NodeShape[] = [], concurrencyLimit?: number): Promise<void> {
      const holdsSlot = concurrencyLimit !== undefined;
      const items = [
        {
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
        },
        activityUpdate(tableName, request.account_id, utcDay(request.created_at), { requests: 1 }),
      ];
      try {
        await transactWrite(db, { TransactItems: holdsSlot ? [...items, acquireSlot(tableName, request.account_id, concurrencyLimit)] : items });
      } catch (error) {
        if (holdsSlot && refusedSlot(error, items.length)) throw concurrencyRefusal(concurrencyLimit);
        throw error;
      }
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
      return Item ? strip(Item as WorkflowRequest & Record<string, unknown>) : undefined;
    },

    async getNode(requestId: string, nodeId: string): Promise<NodeExecution | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.nodeExecution(requestId, nodeId), ConsistentRead: true }));
      return Item ? strip(Item as NodeExecution & Record<string, unknown>) : undefined;
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
      options: { incrementAttempt?: boolean; leaseExpiredBefore?: number; create?: NodeExecution } = {},
    ): Promise<NodeExecution | undefined> {
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
      return (await guardedUpdate(
        keys.nodeExecution(requestId, nodeId),
        update,
        condition,
        { ...names, ...created.names },
        { ...values, ...created.values },
      )) as NodeExecution | undefined;
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
      create?: NodeExecution,
      cost?: NodeCost,
    ): Promise<boolean> {
      if (cost && cost.costMicroUsd > 0 && cost.inputTokens + cost.outputTokens > 0) return settleMetered(requestId, nodeId, from, set, attempt, create, cost);
      // A node that called no model costs the flat fee only: it is kept on the node and recorded into the windows
      // with the request's end (endRequest), since a transaction per node would cost a pure node several times its own write.
      const fee = cost && cost.costMicroUsd > 0 ? cost.costMicroUsd : 0;
      const metered =
        fee > 0 ? { ...set, usage: { input_tokens: 0, output_tokens: 0, cost_micro_usd: fee, extra_micro_usd: 0 }, unrecorded_micro_usd: fee } : set;
      const update = settleUpdate(metered, from, attempt, create);
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
      return strip(Attributes as NodeExecution & Record<string, unknown>);
    },

    /**
     * Moves the request to a terminal state, once (`from` guards it), and in
     * the same transaction counts its node executions in the account's daily
     * activity (`node_count` of the day it ends): every one of them is
     * settled by then (finish.ts stops the open ones first), so a request's
     * nodes are counted exactly once, however often its end is redelivered.
     * Counting each node as it settles would turn every settle (one
     * UpdateItem, the engine's most frequent write) into a transaction;
     * this is one per request. A request holding a slot of the account's
     * work in progress (`concurrency_slot`, see create) releases it in the
     * same transaction. The request is read first (its account, node count
     * and slot) and after (a transaction does not return the item).
     * An end DynamoDB refuses for what it holds (its event's request view
     * nested too deep or too large) is written failed (`internal_error`)
     * with the event reduced, its slot, counts and debit as any end's.
     * Undefined when the request was not in `from`.
     */
    async endRequest(
      requestId: string,
      from: readonly RequestStatus[],
      set: Partial<WorkflowRequest> & { status: RequestStatus },
      /** The fees its nodes left to the end, when the caller read them with every node settled (outcome). */
      knownFees?: number,
      /**
       * The event that tells of the end (an account event, for webhooks), written in the same transaction; asked
       * with the request as it ends, and again, `reduced` (without what its caller sent), for an end written failed
       * because DynamoDB refused it for what it holds.
       */
      eventOf?: (ended: WorkflowRequest, reduced?: boolean) => Promise<AccountEvent | undefined>,
    ): Promise<WorkflowRequest | undefined> {
      const current = await this.get(requestId);
      if (!current || !from.includes(current.status)) return undefined;
      const ended = typeof set.completed_at === 'string' ? set.completed_at : nowIso();
      // A request that never showed `in_progress` (its start deferred, executor.ts) starts no later than it ends.
      let applied = current.started_at || set.started_at ? set : { ...set, started_at: ended };
      let guarded = guardedSet(applied, from);
      // The fees its nodes left to the end (settleNode): every node is settled by now (finish.ts stops the open ones first).
      const fees = knownFees ?? sumOf(await queryNodeItems(requestId, '#status, #error, unrecorded_micro_usd'), 'unrecorded_micro_usd');
      // The slot of work in progress it took at creation is given back with the end that frees it, and its mark
      // removed in the same write: given back once, even by a request that is ended again.
      const holdsSlot = current.concurrency_slot === true;
      let release = holdsSlot;
      // The item as the transaction leaves it, built here: its guard holds, so nothing else moves it meanwhile.
      const { concurrency_slot: _slot, ...rest } = current;
      const endedAt = new Date(ended);
      let ending = { ...rest, ...applied, ...(fees > 0 ? { cost_micro_usd: (current.cost_micro_usd ?? 0) + fees } : {}) } as WorkflowRequest;
      let event = eventOf ? await eventOf(ending) : undefined;
      let reduced = false;
      for (let round = 1; ; round++) {
        const recorded = fees > 0 ? await meter.record(current.account_id, fees) : undefined;
        const feesExtra = recorded?.extraMicroUsd ?? 0;
        const cost = (current.cost_micro_usd ?? 0) + fees;
        const extra = (current.extra_micro_usd ?? 0) + feesExtra;
        const adds = fees > 0 ? ' ADD cost_micro_usd :fees, extra_micro_usd :fees_extra' : '';
        // Its node executions (and their cost) count in the activity of the day it ends; one update of the day item per transaction: merged.
        const counts = { ...(current.node_count > 0 ? { nodes: current.node_count } : {}), ...(cost > 0 ? { cost_micro_usd: cost } : {}) };
        const own: TransactItem[] = [
          {
            Update: {
              TableName: tableName,
              Key: keys.workflowRequest(requestId),
              UpdateExpression: `${guarded.update}${adds}${holdsSlot ? ' REMOVE concurrency_slot' : ''}`,
              ConditionExpression: guarded.condition,
              ExpressionAttributeNames: guarded.names,
              ExpressionAttributeValues: { ...guarded.values, ...(fees > 0 ? { ':fees': fees, ':fees_extra': feesExtra } : {}) },
            },
          },
          ...(Object.keys(counts).length > 0 ? [activityUpdate(tableName, current.account_id, utcDay(ended), counts)] : []),
          ...(recorded ? [recorded.item] : []),
          ...(event ? [accountEventPut(table, current.account_id, event, endedAt)] : []),
          ...(release ? [releaseSlot(tableName, current.account_id)] : []),
        ];
        // Its extra-funded usage is paid by one debit written with the end, its items first: both or neither, once.
        const offset = extra > 0 ? ENTRY_ITEM_COUNT : 0;
        try {
          await (extra > 0
            ? billing(table).debitWith(
                {
                  id: requestDebitId(requestId),
                  accountId: current.account_id,
                  amountMicroUsd: extra,
                  description: `Extra usage of workflow request ${requestId}`,
                  metadata: { workflow_request_id: requestId },
                },
                (debit) => transactWrite(db, { TransactItems: [...debit, ...own] }),
              )
            : transactWrite(db, { TransactItems: own }));
          if (fees > 0) ending = { ...ending, extra_micro_usd: extra };
          return ending;
        } catch (error) {
          if (!reduced && isRefusedForContent(error)) {
            // Refused for what it holds (a payload nested too deep for DynamoDB in its event, an item too large): the
            // same end would be refused on every try, and a request that cannot end keeps its slot and its debit unpaid.
            logger().error('a workflow request’s end was refused for what it holds; it ends failed without it', {
              workflow_request_id: requestId,
              status: applied.status,
              error: error as Error,
            });
            reduced = true;
            applied = { ...applied, status: 'failed', error: unrecordableEnd(applied.status) };
            guarded = guardedSet(applied, from);
            ending = { ...ending, ...applied };
            event = eventOf ? await eventOf(ending, true) : undefined;
            continue;
          }
          const reasons = cancellationReasons(error);
          const refused = (index: number) => reasons?.[offset + index]?.Code === 'ConditionalCheckFailed';
          if (!reasons || refused(0)) {
            if (isConditionFailure(error)) return undefined;
            throw error;
          }
          // A window opened meanwhile: read the windows again.
          if (recorded && refused(own.indexOf(recorded.item)) && round < METERED_ATTEMPTS) continue;
          // A counter already at zero (set by hand) refuses the release; the request must end all the same.
          if (release && refusedSlot(error, offset + own.length - 1)) {
            logger().warn('in_progress was already 0 when a workflow request gave its slot back', { workflow_request_id: requestId });
            release = false;
            continue;
          }
          throw error;
        }
      }
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
     * expects the log to continue, when it knows.
     */
    async appendEvents(requestId: string, data: Array<RequestEvent['data']>, nextSeq?: number): Promise<RequestEvent[]> {
      return appendEvents(requestEventLog(table, requestId), data, nextSeq);
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
