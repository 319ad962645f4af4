import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { billing, type DebitInput, ENTRY_ITEM_COUNT } from '#billing/index.js';
import { eventPageItem } from '#events/pages.js';
import { logger } from '#platform/observability/logger.js';
import { newestFirstPage } from '#platform/table/index-page.js';
import { keys } from '#platform/table/keys.js';
import { queryAll } from '#platform/table/queries.js';
import { cancellationReasons, defaultTable, isConditionFailure, type TableRef } from '#platform/table/table.js';
import type { TransactItem } from '#platform/table/transactions.js';
import { equalityFilter, guardedSet } from '#platform/table/update-expressions.js';
import { type UsageMeter, usageMeter } from '#usage/index.js';
import { type RunEventData, runEventLog } from './events.js';
import { isTerminal, RUN_ID, type Run, type RunStatus } from './model.js';
import { runDebitId } from './run-money.js';

/**
 * Runs in the table (docs/data-model.md): the run item `RUN#<id>`/`RUN`
 * (gsi1: the account's runs, newest first), its recorded steps and event
 * pages in the same partition, and its machine queue entry while queued.
 *
 * Every change of a run is one transaction (`change`): the run item's new
 * fields on condition that its `event_seq` and status are still what was
 * read (and the lease, for the worker's changes), the page of the events
 * that record the change, and the other items the change moves (a machine,
 * a queue entry, a step). A refused condition anywhere means something
 * changed first: the caller reads again and decides. The change that ends
 * a run with extra-funded usage also writes its one debit (lib/billing):
 * the end and its payment together or neither.
 */

export interface RunChange {
  /** Fields of the run to set (`status`, `output`, …). */
  set: Partial<Omit<Run, 'id' | 'account_id' | 'event_seq'>>;
  /** The statuses the run must still have. */
  from: readonly RunStatus[];
  /** The worker that must still hold the lease. */
  leaseOwner?: string;
  /** The interaction the run must still wait for. */
  waitingFor?: string;
  events: RunEventData[];
  /** Other items written in the same transaction. */
  items?: TransactItem[];
  /**
   * The account's slot of work in progress given back by this change (its
   * end): left out, with a warning, when the counter refuses it (already 0,
   * set by hand), so that an end is never held back by it.
   */
  releasesSlot?: TransactItem | undefined;
  /**
   * The usage cost the stored run has, when the `run` given to `change`
   * carries a newer usage already (a model turn ending the run): the cost
   * recorded is the rise from this one.
   */
  costBefore?: number;
}

const toRun = (item: Record<string, unknown>): Run => {
  const { pk: _a, sk: _b, gsi1pk: _c, gsi1sk: _d, entity: _e, ...rest } = item;
  return rest as unknown as Run;
};

/** A recorded step: a model turn (`call` absent) or one call's result. */
export type StepItem = Record<string, unknown> & { turn: number; call?: number };

export function runsRepo(table: TableRef = defaultTable(), meter: Pick<UsageMeter, 'record'> = usageMeter(table)) {
  const { db, tableName } = table;
  const wallet = billing(table);

  async function get(runId: string): Promise<Run | undefined> {
    if (!RUN_ID.test(runId)) return undefined;
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.run(runId), ConsistentRead: true }));
    return Item ? toRun(Item) : undefined;
  }

  /** Sends a transaction; true, or the cancellation when a condition or a concurrent transaction refused it (its reasons tell which item). */
  async function attempt(items: TransactItem[]): Promise<true | unknown> {
    try {
      await db.send(new TransactWriteCommand({ TransactItems: items }));
      return true;
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (reasons?.some((r) => r.Code === 'ConditionalCheckFailed' || r.Code === 'TransactionConflict')) return error;
      throw error;
    }
  }

  /**
   * A change that raises the run's usage cost (a model turn recorded, machine
   * time banked) records the increase in the account's usage windows in the
   * same transaction (lib/usage), and adds its extra-funded part to the
   * run's `extra_micro_usd`: the run's own condition (its `event_seq`) makes
   * the cost counted exactly once, however often the change is retried or
   * its message redelivered. A window opened meanwhile refuses the whole
   * change, and the caller reads again and retries, as for any race.
   */
  async function metered(run: Run, change: RunChange): Promise<RunChange> {
    const cost = change.set.usage?.cost_micro_usd;
    const increase = cost === undefined ? 0 : cost - (change.costBefore ?? run.usage.cost_micro_usd);
    if (increase <= 0) return change;
    const { item, extraMicroUsd } = await meter.record(run.account_id, increase);
    return {
      ...change,
      set: extraMicroUsd > 0 ? { ...change.set, extra_micro_usd: (run.extra_micro_usd ?? 0) + extraMicroUsd } : change.set,
      items: [...(change.items ?? []), item],
    };
  }

  /** The debit of an ending change: the run's extra-funded usage, all of it (nothing of it was debited before its end). */
  function endingDebit(run: Run, change: RunChange): DebitInput | undefined {
    if (change.set.status === undefined || !isTerminal(change.set.status)) return undefined;
    const amount = change.set.extra_micro_usd ?? run.extra_micro_usd ?? 0;
    if (amount <= 0) return undefined;
    return {
      id: runDebitId(run.id),
      accountId: run.account_id,
      amountMicroUsd: amount,
      description: `Extra usage of run ${run.id}`,
      metadata: { run_id: run.id },
    };
  }

  /** `attempt` with the debit's items first in the same transaction (billing retries its own refusals; the cancellation's reasons count them). */
  async function attemptPaid(debit: DebitInput, items: TransactItem[]): Promise<true | unknown> {
    try {
      await wallet.debitWith(debit, async (ledger) => {
        await db.send(new TransactWriteCommand({ TransactItems: [...ledger, ...items] }));
      });
      return true;
    } catch (error) {
      if (cancellationReasons(error)?.some((r) => r.Code === 'ConditionalCheckFailed' || r.Code === 'TransactionConflict')) return error;
      throw error;
    }
  }

  /** True when the item at `index` alone refused the transaction. */
  function refusedOnlyAt(refusal: unknown, index: number): boolean {
    const reasons = cancellationReasons(refusal) ?? [];
    return reasons[index]?.Code === 'ConditionalCheckFailed' && reasons.every((r, i) => i === index || r.Code === 'None' || r.Code === undefined);
  }

  async function changeRun(run: Run, original: RunChange): Promise<Run | undefined> {
    const change = await metered(run, original);
    const nextSeq = run.event_seq + change.events.length;
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
    const items: TransactItem[] = [
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
                Item: eventPageItem(runEventLog(table, run.id), run.event_seq + 1, change.events),
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ]
        : []),
      ...(change.items ?? []),
      ...(change.releasesSlot ? [change.releasesSlot] : []),
    ];
    const debit = endingDebit(run, change);
    const outcome = await (debit ? attemptPaid(debit, items) : attempt(items));
    if (outcome === true) return { ...run, ...change.set, event_seq: nextSeq } as Run;
    if (change.releasesSlot && refusedOnlyAt(outcome, (debit ? ENTRY_ITEM_COUNT : 0) + items.length - 1)) {
      // The counter was already at 0 (set by hand): the run ends all the same, its slot given back to nothing.
      logger().warn('in_progress was already 0 when a run gave its slot back', { run_id: run.id });
      return changeRun(run, { ...original, releasesSlot: undefined });
    }
    return undefined;
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
      return (await this.createOrRefusal(run, events, items)) === true;
    },

    /**
     * The same put: true, or the cancellation when a condition refused it,
     * whose reasons tell which item (the run's put and its event page are
     * items 0 and 1, `items` follow).
     */
    async createOrRefusal(run: Run, events: RunEventData[], items: TransactItem[]): Promise<true | unknown> {
      return attempt([
        {
          Put: {
            TableName: tableName,
            Item: { ...keys.run(run.id), ...keys.runIndex(run.account_id, run.created_at, run.id), entity: 'run', ...run, event_seq: events.length },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        { Put: { TableName: tableName, Item: eventPageItem(runEventLog(table, run.id), 1, events), ConditionExpression: 'attribute_not_exists(pk)' } },
        ...items,
      ]);
    },

    /** Applies a change (see RunChange); the run as changed, or undefined when anything was refused. */
    change: changeRun,

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

    /** Every recorded step of a run, in order. */
    async steps(runId: string): Promise<StepItem[]> {
      const prefix = keys.runStepPrefix(runId);
      const items = await queryAll(db, {
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': prefix.pk, ':prefix': prefix.skPrefix },
        ConsistentRead: true,
      });
      return items as StepItem[];
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

    /** The chat's finished runs (input and output), oldest first, at most `limit` of the newest. */
    async chatTurns(chatId: string, limit: number): Promise<Array<{ input: unknown; output: string }>> {
      const prefix = keys.chatRunTurnPrefix(chatId);
      const { Items } = await db.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': prefix.pk, ':prefix': prefix.skPrefix },
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
