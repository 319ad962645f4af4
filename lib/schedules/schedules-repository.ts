import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '#platform/errors.js';
import { deleteCounted, putCounted } from '#platform/table/counted-items.js';
import { entityOf } from '#platform/table/items.js';
import { keys } from '#platform/table/keys.js';
import { newestUnderPrefix } from '#platform/table/queries.js';
import { defaultTable, isConditionFailure, type TableRef } from '#platform/table/table.js';
import { ScheduleLimitReachedError } from './errors.js';
import { MAX_SCHEDULES_PER_ACCOUNT, SCHEDULE_ID, type Schedule } from './model.js';

const counterOf = (accountId: string) => ({ key: keys.scheduleCount(accountId), accountId, entity: 'schedule_count' });

const toSchedule = (item: Record<string, unknown>): Schedule => entityOf<Schedule>(item, [], { last_error: null, last_fired_at: null });

/** The schedule's item: in the due index only while enabled with a next firing. */
const itemOf = (schedule: Schedule) => ({
  ...keys.schedule(schedule.account_id, schedule.id),
  ...(schedule.enabled && schedule.next_fire_at ? keys.scheduleDueIndex(schedule.next_fire_at, schedule.id) : {}),
  entity: 'schedule',
  ...schedule,
});

/**
 * Schedules in the table (docs/data-model.md): one item each under its
 * account, `ACCOUNT#<a>` / `SCHEDULE#<id>`, and an owner item
 * `SCHEDULE#<id>` naming the account, for firings, which carry the id
 * alone. Every change is a whole put conditioned on the revision it read.
 */
export function schedulesRepo(table: TableRef = defaultTable()) {
  const { db, tableName } = table;

  async function get(accountId: string, scheduleId: string): Promise<Schedule | undefined> {
    if (!SCHEDULE_ID.test(scheduleId)) return undefined;
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.schedule(accountId, scheduleId), ConsistentRead: true }));
    return Item ? toSchedule(Item) : undefined;
  }

  async function owner(scheduleId: string): Promise<string | undefined> {
    if (!SCHEDULE_ID.test(scheduleId)) return undefined;
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.scheduleOwner(scheduleId), ConsistentRead: true }));
    return typeof Item?.account_id === 'string' ? Item.account_id : undefined;
  }

  async function removeOwner(scheduleId: string): Promise<void> {
    await db.send(new DeleteCommand({ TableName: tableName, Key: keys.scheduleOwner(scheduleId) }));
  }

  return {
    /**
     * Puts a new schedule: its owner item first (a leftover of a refused
     * create names a schedule that does not exist, which firings ignore),
     * then the schedule with the account's count of them, below
     * MAX_SCHEDULES_PER_ACCOUNT (409 `schedule_limit_reached`).
     */
    async create(schedule: Schedule): Promise<Schedule> {
      await db.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...keys.scheduleOwner(schedule.id), entity: 'schedule_owner', schedule_id: schedule.id, account_id: schedule.account_id },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      const outcome = await putCounted(table, counterOf(schedule.account_id), MAX_SCHEDULES_PER_ACCOUNT, {
        TableName: tableName,
        Item: itemOf(schedule),
        ConditionExpression: 'attribute_not_exists(pk)',
      });
      if (outcome === 'put') return schedule;
      await removeOwner(schedule.id);
      if (outcome === 'limit') throw new ScheduleLimitReachedError();
      throw new ConflictError('schedule_exists', `A schedule with id ${schedule.id} already exists.`);
    },

    /** The account's schedule (consistent); undefined for a malformed, unknown or other account's id alike. */
    get,

    /** The account a schedule id is of, while its owner item is there (from its creation until its delete has finished). */
    owner,

    /** The schedule by id alone, whoever's it is (a firing); undefined when there is none. */
    async find(scheduleId: string): Promise<Schedule | undefined> {
      const accountId = await owner(scheduleId);
      return accountId ? get(accountId, scheduleId) : undefined;
    },

    /** The account's schedules, newest first (a consistent Query). `after` is the last id of the previous page. */
    async list(accountId: string, options: { limit: number; after?: string }): Promise<{ schedules: Schedule[]; nextAfter?: string }> {
      const page = await newestUnderPrefix(table, keys.schedulePrefix(accountId), (id) => keys.schedule(accountId, id), options, toSchedule);
      return { schedules: page.items, nextAfter: page.nextAfter };
    },

    /**
     * Writes `next` (revision `read.revision + 1`) on condition that the
     * item is still at `read`'s revision: the written schedule, or undefined
     * when another write came first or the schedule is gone (read it again).
     */
    async save(read: Pick<Schedule, 'revision'>, next: Schedule): Promise<Schedule | undefined> {
      const written = { ...next, revision: read.revision + 1 };
      try {
        await db.send(
          new PutCommand({
            TableName: tableName,
            Item: itemOf(written),
            ConditionExpression: 'attribute_exists(pk) AND revision = :revision',
            ExpressionAttributeValues: { ':revision': read.revision },
          }),
        );
        return written;
      } catch (error) {
        if (isConditionFailure(error)) return undefined;
        throw error;
      }
    },

    /** Deletes the account's schedule and lowers its count: false when it was not there. The owner item stays until `removeOwner`. */
    async delete(accountId: string, scheduleId: string): Promise<boolean> {
      if (!SCHEDULE_ID.test(scheduleId)) return false;
      return deleteCounted(table, counterOf(accountId), {
        TableName: tableName,
        Key: keys.schedule(accountId, scheduleId),
        ConditionExpression: 'attribute_exists(pk)',
      });
    },

    removeOwner,

    /**
     * Enabled schedules whose next firing is at `now` or before, oldest
     * first, from the sparse due index (eventually consistent: what a
     * firing does is decided on a consistent read).
     */
    async due(now: Date, limit: number): Promise<Schedule[]> {
      const { Items } = await db.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk <= :bound',
          // '~' sorts after every character of an id: the bound takes every schedule due at `now` itself.
          ExpressionAttributeValues: { ':pk': keys.scheduleDuePartition, ':bound': `${now.toISOString()}#~` },
          Limit: limit,
        }),
      );
      return (Items ?? []).map(toSchedule);
    },
  };
}

export type SchedulesRepo = ReturnType<typeof schedulesRepo>;
