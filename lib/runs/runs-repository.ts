import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { eventPageItem, eventsFrom, type LoggedEvent, lastEventSeq } from '#events/pages.js';
import { newestFirstPage } from '#platform/table/index-page.js';
import { entityOf } from '#platform/table/items.js';
import { keys } from '#platform/table/keys.js';
import { queryAll } from '#platform/table/queries.js';
import { defaultTable, isConditionFailure, type TableRef } from '#platform/table/table.js';
import type { TransactItem } from '#platform/table/transactions.js';
import { equalityFilter, guardedSet } from '#platform/table/update-expressions.js';
import { runEventLog } from './events.js';
import { RUN_ID, type Run, type RunEventData, type RunStatus, type RunWrite, type StepItem } from './model.js';

/**
 * Runs in the table (docs/data-model.md): the run item `RUN#<id>`/`RUN`
 * (gsi1: the account's runs, newest first), its recorded steps and event
 * pages in the same partition, and its machine queue entry while queued.
 *
 * Every change of a run is one transaction: the run item's new fields on
 * condition that its `event_seq` and status are still what was read (and
 * the lease, for the worker's changes), the page of the events that record
 * the change, and the other items the change moves (a machine, a queue
 * entry, a step): `changeItems`, sent by the change's settlement
 * (./run-changes.ts) with what moves with it. A refused condition anywhere
 * means something changed first: the caller reads again and decides.
 */

const toRun = (item: Record<string, unknown>): Run => entityOf<Run>(item);

export function runsRepo(table: TableRef = defaultTable()) {
  const { db, tableName } = table;

  async function get(runId: string): Promise<Run | undefined> {
    if (!RUN_ID.test(runId)) return undefined;
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.run(runId), ConsistentRead: true }));
    return Item ? toRun(Item) : undefined;
  }

  /**
   * The run's items of a change: its guarded update, its events' page, the
   * change's other items. The page follows `change.afterSeq` (the log's
   * tail past the run's `event_seq`, where a running run's deltas lie) or
   * the run's `event_seq`; either way it ends a page, so a page written
   * there since makes the put, and the change, refused.
   */
  function changeItems(run: Run, change: RunWrite): TransactItem[] {
    const after = change.afterSeq ?? run.event_seq;
    const nextSeq = after + change.events.length;
    const guarded = guardedSet({ ...change.set, event_seq: nextSeq }, change.from);
    const names = { ...guarded.names };
    const values: Record<string, unknown> = { ...guarded.values, ':seen_seq': run.event_seq };
    let condition = `${guarded.condition} AND event_seq = :seen_seq`;
    if (change.leaseOwner !== undefined) {
      condition += ' AND lease_owner = :lease_owner_seen';
      values[':lease_owner_seen'] = change.leaseOwner;
    }
    if (change.waitingFor !== undefined) {
      condition += ' AND #wait.interaction_id = :waiting_for';
      names['#wait'] = 'wait';
      values[':waiting_for'] = change.waitingFor;
    }
    return [
      {
        Update: {
          TableName: tableName,
          Key: keys.run(run.id),
          UpdateExpression: guarded.update,
          ConditionExpression: condition,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      },
      ...(change.events.length
        ? [
            {
              Put: {
                TableName: tableName,
                Item: eventPageItem(runEventLog(table, run.id), after + 1, change.events),
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ]
        : []),
      ...(change.items ?? []),
    ];
  }

  /**
   * The items that put a new run: the run, its first events' page (each only if absent), and the items that place it.
   * The page follows `run.event_seq`: 0, or the events a fork copied before it (lib/runs/fork-run.ts).
   */
  function createItems(run: Run, events: RunEventData[], items: TransactItem[]): TransactItem[] {
    return [
      {
        Put: {
          TableName: tableName,
          Item: {
            ...keys.run(run.id),
            ...keys.runIndex(run.account_id, run.created_at, run.id),
            entity: 'run',
            ...run,
            event_seq: run.event_seq + events.length,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Put: {
          TableName: tableName,
          Item: eventPageItem(runEventLog(table, run.id), run.event_seq + 1, events),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      ...items,
    ];
  }

  return {
    get,

    /** The run if it is the account's; undefined for a malformed, unknown or other account's id alike. */
    async getOwned(accountId: string, runId: string): Promise<Run | undefined> {
      const run = await get(runId);
      return run?.account_id === accountId ? run : undefined;
    },

    /** Puts a new run with its first events and the items that place it; false when one of their conditions failed. */
    async create(run: Run, events: RunEventData[], items: TransactItem[]): Promise<boolean> {
      try {
        await db.send(new TransactWriteCommand({ TransactItems: createItems(run, events, items) }));
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },

    createItems,
    changeItems,

    /** The run as a change leaves it (a transaction does not return the item). */
    changed(run: Run, change: Pick<RunWrite, 'set' | 'events' | 'afterSeq'>): Run {
      return { ...run, ...change.set, event_seq: (change.afterSeq ?? run.event_seq) + change.events.length } as Run;
    },

    /**
     * Takes the loop's lease for `owner` until `until` (epoch ms): free,
     * expired, or already `owner`'s. False when a live lease of another
     * worker holds it or the run is no longer running.
     */
    async takeLease(runId: string, owner: string, until: number, now: number): Promise<boolean> {
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.run(runId),
            UpdateExpression: 'SET lease_owner = :owner, lease_until = :until',
            ConditionExpression: '#status = :running AND (lease_until < :now OR lease_owner = :owner OR attribute_type(lease_owner, :null_type))',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':owner': owner, ':until': until, ':now': now, ':running': 'running', ':null_type': 'NULL' },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },

    /** Gives the lease up (the loop continues in another message, which may take it at once). */
    async releaseLease(runId: string, owner: string): Promise<void> {
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.run(runId),
            UpdateExpression: 'SET lease_until = :zero',
            ConditionExpression: 'lease_owner = :owner',
            ExpressionAttributeValues: { ':owner': owner, ':zero': 0 },
          }),
        );
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    },

    /** The status and lease holder now (what a worker in a long call watches for a cancel or a takeover). */
    async pulse(runId: string): Promise<{ status: RunStatus; lease_owner: string | null } | undefined> {
      const { Item } = await db.send(
        new GetCommand({
          TableName: tableName,
          Key: keys.run(runId),
          ProjectionExpression: '#status, lease_owner',
          ExpressionAttributeNames: { '#status': 'status' },
          ConsistentRead: true,
        }),
      );
      return Item ? { status: Item.status as RunStatus, lease_owner: (Item.lease_owner as string | null) ?? null } : undefined;
    },

    /** The run's events from `from` (a seq that opens a page) on, to the log's end, in order (a streamed turn's, lib/runs/deltas.ts). */
    eventsFrom: (runId: string, from: number): Promise<LoggedEvent<RunEventData>[]> =>
      eventsFrom<RunEventData>(runEventLog(table, runId), from, { pagesPerQuery: 100 }),

    /** The seq of the run's last event: its `event_seq`, or, while it runs, the log's end past it (its deltas, ./deltas.ts), from the newest page. */
    watermark: async (run: Run): Promise<number> =>
      run.status === 'running' ? Math.max(run.event_seq, await lastEventSeq(runEventLog(table, run.id))) : run.event_seq,

    /**
     * Puts `events` as the page after `afterSeq` (the end of a page), on
     * condition that no page starts there: a running run's `message.delta`
     * events, written by its lease holder without a change of the run
     * (lib/runs/deltas.ts). False when something was written there first.
     */
    async appendAfter(runId: string, afterSeq: number, events: RunEventData[]): Promise<boolean> {
      try {
        await db.send(
          new PutCommand({
            TableName: tableName,
            Item: eventPageItem(runEventLog(table, runId), afterSeq + 1, events),
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },

    /** Every recorded step of a run, in order. */
    async steps(runId: string): Promise<StepItem[]> {
      const prefix = keys.runStepPrefix(runId);
      const items = await queryAll(db, {
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': prefix.pk, ':prefix': prefix.skPrefix },
        ConsistentRead: true,
      });
      return items.map((item) => entityOf<StepItem>(item));
    },

    /** A step's Put, for a change's items: written once (a redelivered worker finds it there and does not redo it). */
    stepPut(runId: string, step: StepItem): TransactItem {
      return {
        Put: {
          TableName: tableName,
          Item: { ...keys.runStep(runId, step.turn, step.call), entity: 'run_step', ...step },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      };
    },

    /** The first run waiting for a machine, if any. */
    async queueHead(machineId: string): Promise<{ run_id: string; sk: string } | undefined> {
      const { Items } = await db.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': keys.machineQueuePartition(machineId) },
          ConsistentRead: true,
          Limit: 1,
        }),
      );
      const head = Items?.[0];
      return head ? { run_id: head.run_id as string, sk: head.sk as string } : undefined;
    },

    queueEntryPut(run: Pick<Run, 'id' | 'machine_id' | 'created_at'>, priority: 0 | 1): { item: TransactItem; sk: string } {
      const key = keys.machineQueueEntry(run.machine_id, priority, run.created_at, run.id);
      return {
        item: {
          Put: { TableName: tableName, Item: { ...key, entity: 'machine_queue_entry', run_id: run.id }, ConditionExpression: 'attribute_not_exists(pk)' },
        },
        sk: key.sk,
      };
    },

    queueEntryDelete(machineId: string, sk: string): TransactItem {
      return { Delete: { TableName: tableName, Key: { pk: keys.machineQueuePartition(machineId), sk }, ConditionExpression: 'attribute_exists(pk)' } };
    },

    /**
     * The chat's finished runs (input and output), oldest first, at most `limit` of the newest;
     * with `before`, of the runs created before that time only (a fork's history: its source's).
     */
    async chatTurns(chatId: string, limit: number, before?: string): Promise<Array<{ input: unknown; output: string }>> {
      const prefix = keys.chatRunTurnPrefix(chatId);
      const range =
        before === undefined
          ? { KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)', ExpressionAttributeValues: { ':pk': prefix.pk, ':prefix': prefix.skPrefix } }
          : {
              KeyConditionExpression: 'pk = :pk AND sk BETWEEN :prefix AND :bound',
              ExpressionAttributeValues: { ':pk': prefix.pk, ':prefix': prefix.skPrefix, ':bound': keys.chatRunTurnBound(chatId, before).sk },
            };
      const { Items } = await db.send(
        new QueryCommand({
          TableName: tableName,
          ...range,
          ScanIndexForward: false,
          ConsistentRead: true,
          Limit: limit,
        }),
      );
      return (Items ?? []).reverse().map((item) => ({ input: item.input, output: item.output as string }));
    },

    chatTurnPut(run: Pick<Run, 'id' | 'chat_id' | 'created_at' | 'input'>, output: string): TransactItem {
      return {
        Put: {
          TableName: tableName,
          Item: { ...keys.chatRunTurn(run.chat_id!, run.created_at, run.id), entity: 'chat_run_turn', run_id: run.id, input: run.input, output },
        },
      };
    },

    /** The account's runs, newest first, optionally by status and harness. */
    async list(
      accountId: string,
      filters: { status?: RunStatus; harness_id?: string },
      options: { limit: number; after?: { gsi1sk: string; pk: string; sk: string } },
    ) {
      const page = await newestFirstPage(db, tableName, keys.runIndexPartition(accountId), equalityFilter(filters), options);
      return { runs: page.items.map(toRun), next: page.next };
    },
  };
}

export type RunsRepo = ReturnType<typeof runsRepo>;
