import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError, NotFoundError } from '#platform/errors.js';
import { deleteCounted, putCounted } from '#platform/table/counted-items.js';
import { entityOf } from '#platform/table/items.js';
import { keys } from '#platform/table/keys.js';
import { queryPage } from '#platform/table/queries.js';
import { defaultTable, isConditionFailure, type TableRef } from '#platform/table/table.js';
import { HookLimitReachedError } from './errors.js';
import { HOOK_ID, HOOK_POSITION, type Hook, MAX_HOOKS_PER_ACCOUNT } from './model.js';

const counterOf = (accountId: string) => ({ key: keys.hookCount(accountId), accountId, entity: 'hook_count' });

/** Null until the first rotation. */
const toHook = (item: Record<string, unknown>): Hook =>
  entityOf<Hook>(item, [], { previous_secret_version: null, previous_valid_until: null, secret_rotated_at: null });

const NO_SUCH_HOOK = 'No such hook.';

export function hooksRepo(table: TableRef = defaultTable()) {
  const { db, tableName } = table;

  /** The hook by id alone, whoever's it is (its events URL); undefined for a malformed or unknown id. */
  async function find(hookId: string): Promise<Hook | undefined> {
    if (!HOOK_ID.test(hookId)) return undefined;
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.hook(hookId), ConsistentRead: true }));
    return Item ? toHook(Item) : undefined;
  }

  return {
    /** Puts a new hook (its key free, the account's count of them below MAX_HOOKS_PER_ACCOUNT): one item, listed through gsi1. */
    async create(hook: Hook): Promise<Hook> {
      const outcome = await putCounted(table, counterOf(hook.account_id), MAX_HOOKS_PER_ACCOUNT, {
        TableName: tableName,
        Item: { ...keys.hook(hook.id), ...keys.hooksIndex(hook.account_id, hook.created_at, hook.id), entity: 'hook', ...hook },
        ConditionExpression: 'attribute_not_exists(pk)',
      });
      if (outcome === 'limit') throw new HookLimitReachedError();
      if (outcome === 'exists') throw new ConflictError('hook_exists', `A hook with id ${hook.id} already exists.`);
      return hook;
    },

    find,

    /** The account's hook; undefined for a malformed, unknown or other account's id alike. */
    async get(accountId: string, hookId: string): Promise<Hook | undefined> {
      const hook = await find(hookId);
      return hook?.account_id === accountId ? hook : undefined;
    },

    /**
     * The account's hooks, newest first, from the gsi1 index (eventually
     * consistent: a hook created a moment ago may be missing from the list,
     * never from GET). `after` is the position of the previous page's last hook.
     */
    async list(accountId: string, options: { limit: number; after?: string }): Promise<{ hooks: Hook[]; nextAfter?: string }> {
      const gsi1pk = keys.hooksIndexPartition(accountId);
      const afterId = options.after ? HOOK_POSITION.exec(options.after)?.[1] : undefined;
      const page = await queryPage(
        db,
        {
          TableName: tableName,
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :pk',
          ExpressionAttributeValues: { ':pk': gsi1pk },
          ScanIndexForward: false,
        },
        { limit: options.limit, startKey: options.after && afterId ? { gsi1pk, gsi1sk: options.after, ...keys.hook(afterId) } : undefined },
      );
      const hooks = page.items.map(toHook);
      const last = hooks.at(-1);
      return { hooks, nextAfter: page.more && last ? keys.hooksIndex(accountId, last.created_at, last.id).gsi1sk : undefined };
    },

    /** Deletes the account's hook and lowers its count; 404 when it is not there (so of concurrent deletes exactly one succeeds). */
    async delete(accountId: string, hookId: string): Promise<void> {
      if (!HOOK_ID.test(hookId)) throw new NotFoundError(NO_SUCH_HOOK);
      const deleted = await deleteCounted(table, counterOf(accountId), {
        TableName: tableName,
        Key: keys.hook(hookId),
        ConditionExpression: 'account_id = :account',
        ExpressionAttributeValues: { ':account': accountId },
      });
      if (!deleted) throw new NotFoundError(NO_SUCH_HOOK);
    },

    /**
     * One Update: the current secret version becomes the previous one, valid
     * until `previousValidUntil`, and the version goes up by one. Reads of
     * the item's own values in an update expression see it before the
     * update, so concurrent rotations each get a version of their own.
     */
    async rotate(accountId: string, hookId: string, input: { now: string; previousValidUntil: string }): Promise<Hook> {
      if (!HOOK_ID.test(hookId)) throw new NotFoundError(NO_SUCH_HOOK);
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.hook(hookId),
            UpdateExpression:
              'SET previous_secret_version = secret_version, previous_valid_until = :until, secret_version = secret_version + :one, secret_rotated_at = :now',
            ConditionExpression: 'account_id = :account',
            ExpressionAttributeValues: { ':account': accountId, ':until': input.previousValidUntil, ':one': 1, ':now': input.now },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return toHook(Attributes as Record<string, unknown>);
      } catch (error) {
        if (isConditionFailure(error)) throw new NotFoundError(NO_SUCH_HOOK);
        throw error;
      }
    },
  };
}

export type HooksRepo = ReturnType<typeof hooksRepo>;
