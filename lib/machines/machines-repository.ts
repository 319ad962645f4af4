import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError, NotFoundError, UnavailableError } from '#platform/errors.js';
import { entityOf } from '#platform/table/items.js';
import { keys } from '#platform/table/keys.js';
import { newestUnderPrefix } from '#platform/table/queries.js';
import { cancellationReasons, defaultTable, type TableRef } from '#platform/table/table.js';
import { MachineBusyError, MachineLimitReachedError } from './errors.js';
import { MACHINE_ID, type Machine } from './model.js';
import type { MachineSize } from './sizes.js';

/**
 * The delete's condition: the machine exists and nothing holds it or waits
 * for it. Absent and null fields both mean none, so the runs feature may
 * REMOVE `current_run_id` or SET it to null.
 */
const IDLE =
  'attribute_exists(pk) AND (attribute_not_exists(current_run_id) OR attribute_type(current_run_id, :null_type)) AND (attribute_not_exists(queued_runs) OR queued_runs <= :zero)';

/** A transaction that keeps colliding with concurrent ones on the same account gives up after this many tries (503). */
const CONFLICT_ATTEMPTS = 12;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const backoff = (attempt: number) => sleep(Math.random() * Math.min(250, 10 * 2 ** attempt));

// The runs feature may REMOVE `current_run_id` and never have written `queued_runs`: both mean none.
const toMachine = (item: Record<string, unknown>): Machine => entityOf<Machine>(item, [], { current_run_id: null, queued_runs: 0 });

type TransactItems = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>;

/**
 * Sends one transaction. When it is cancelled, `refused` gets the reason
 * code of each item, in order, and throws the answer, or returns to have it
 * tried again after a jittered backoff (a `TransactionConflict`: a
 * concurrent transaction on one of its items). Any other error propagates.
 */
async function transact(db: TableRef['db'], items: TransactItems, refused: (codes: string[]) => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await db.send(new TransactWriteCommand({ TransactItems: items }));
      return;
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (!reasons) throw error;
      const codes = reasons.map((reason) => reason.Code ?? 'None');
      await refused(codes);
      if (!codes.some((code) => code === 'TransactionConflict' || code === 'ConditionalCheckFailed')) throw error;
      if (attempt >= CONFLICT_ATTEMPTS) throw new UnavailableError("Too many changes to this account's machines at once; retry.");
      await backoff(attempt);
    }
  }
}

export function machinesRepo(table: TableRef = defaultTable()) {
  const { db, tableName } = table;

  async function get(accountId: string, machineId: string): Promise<Machine | undefined> {
    if (!MACHINE_ID.test(machineId)) return undefined;
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.machine(accountId, machineId), ConsistentRead: true }));
    return Item ? toMachine(Item) : undefined;
  }

  async function count(accountId: string): Promise<number> {
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.machineCount(accountId), ConsistentRead: true }));
    return Number(Item?.machine_count ?? 0);
  }

  return {
    /**
     * One transaction: the account's counter goes up by one on condition
     * that it is below `limit`, and the machine is put (its key must be
     * free). Concurrent creates serialize on the counter, so the account
     * never has more than `limit` machines. A create that collides with a
     * concurrent transaction reads the counter: at the limit it is refused,
     * else it tries again.
     */
    async create(input: { id: string; accountId: string; name: string; size: MachineSize; now: string; limit: number }): Promise<Machine> {
      const machine: Machine = {
        id: input.id,
        account_id: input.accountId,
        name: input.name,
        size: input.size,
        current_run_id: null,
        queued_runs: 0,
        created_at: input.now,
      };
      if (input.limit < 1) throw new MachineLimitReachedError(input.limit);
      const counter = {
        TableName: tableName,
        Key: keys.machineCount(input.accountId),
        UpdateExpression: 'SET entity = :entity, account_id = :account ADD machine_count :one',
        ConditionExpression: 'attribute_not_exists(machine_count) OR machine_count < :limit',
        ExpressionAttributeValues: { ':entity': 'machine_count', ':account': input.accountId, ':one': 1, ':limit': input.limit },
      };
      const put = {
        TableName: tableName,
        Item: { ...keys.machine(input.accountId, input.id), entity: 'machine', ...machine },
        ConditionExpression: 'attribute_not_exists(pk)',
      };
      await transact(db, [{ Update: counter }, { Put: put }], async (codes) => {
        const [counterCode, itemCode] = codes;
        if (counterCode === 'ConditionalCheckFailed') throw new MachineLimitReachedError(input.limit);
        if (itemCode === 'ConditionalCheckFailed') throw new ConflictError('machine_exists', `A machine with id ${input.id} already exists.`);
        if (codes.includes('TransactionConflict') && (await count(input.accountId)) >= input.limit) throw new MachineLimitReachedError(input.limit);
      });
      return machine;
    },

    /** Undefined for a malformed, unknown or other account's id alike. */
    get,

    /** How many machines the account has, as the limit counts them. */
    count,

    /** The account's machines, newest first (a consistent Query: a machine just created is listed). `after` is the last id of the previous page. */
    async list(accountId: string, options: { limit: number; after?: string }) {
      const page = await newestUnderPrefix(table, keys.machinePrefix(accountId), (id) => keys.machine(accountId, id), options, toMachine);
      return { machines: page.items, nextAfter: page.nextAfter };
    },

    /**
     * One transaction: the machine is deleted on condition that it exists
     * and is idle (IDLE), and the counter goes down by one. A failed
     * condition reads the machine: gone is a 404, held or waited for is a
     * 409 `machine_busy`; idle again by then, the delete is tried again. Of
     * concurrent deletes of one machine exactly one lowers the counter.
     */
    async delete(accountId: string, machineId: string): Promise<void> {
      if (!MACHINE_ID.test(machineId)) throw new NotFoundError('No such machine.');
      const machine = {
        TableName: tableName,
        Key: keys.machine(accountId, machineId),
        ConditionExpression: IDLE,
        ExpressionAttributeValues: { ':null_type': 'NULL', ':zero': 0 },
      };
      const counter = {
        TableName: tableName,
        Key: keys.machineCount(accountId),
        UpdateExpression: 'ADD machine_count :minus_one',
        ConditionExpression: 'machine_count > :zero',
        ExpressionAttributeValues: { ':minus_one': -1, ':zero': 0 },
      };
      await transact(db, [{ Delete: machine }, { Update: counter }], async ([machineCode, counterCode]) => {
        if (machineCode === 'ConditionalCheckFailed') {
          const current = await get(accountId, machineId);
          if (!current) throw new NotFoundError('No such machine.');
          if (current.current_run_id !== null || current.queued_runs > 0) throw new MachineBusyError();
        } else if (counterCode === 'ConditionalCheckFailed') {
          throw new Error(`The machine counter of account ${accountId} is not above zero while machine ${machineId} exists.`);
        }
      });
    },
  };
}

export type MachinesRepo = ReturnType<typeof machinesRepo>;
