import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { LimitOverrides, PlanName } from '#platform/config/plans.js';
import { ConflictError, NotFoundError } from '#platform/errors.js';
import { entityOf } from '#platform/table/items.js';
import { keys } from '#platform/table/keys.js';
import { defaultTable, isConditionFailure, nowIso, type TableRef } from '#platform/table/table.js';
import { setFields } from '#platform/table/update-expressions.js';
import { type Account, type AccountWithSecret, LIMIT_OVERRIDES } from './model.js';

/** What an account item lacking these attributes holds. */
const ACCOUNT_DEFAULTS: Partial<Account> = { balance_micro_usd: 0, suspended: false, extra_usage: false };

const toAccount = (item: Record<string, unknown>): Account => entityOf<Account>(item, ['password_hash'], ACCOUNT_DEFAULTS);

export function accountsRepo(table: TableRef = defaultTable()) {
  const { db, tableName } = table;

  /** An UpdateItem of an existing account (404 otherwise) that sets `set` and `updated_at` and removes `remove`, answering the account as it now is. */
  async function update(accountId: string, set: Record<string, unknown>, remove: readonly string[] = []): Promise<Account> {
    const { update: expression, names, values } = setFields({ ...set, updated_at: nowIso() }, remove);
    try {
      const { Attributes } = await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.account(accountId),
          UpdateExpression: expression,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toAccount(Attributes ?? {});
    } catch (error) {
      if (isConditionFailure(error)) throw new NotFoundError(`No account ${accountId}.`);
      throw error;
    }
  }

  return {
    toAccount,

    async create(input: { id: string; email: string; passwordHash: string; plan: PlanName; balanceMicroUsd: number; extraUsage: boolean }): Promise<Account> {
      const now = nowIso();
      const email = input.email.trim().toLowerCase();
      const item = {
        ...keys.account(input.id),
        ...keys.accountsIndex(),
        gsi1sk: `${now}#${input.id}`,
        entity: 'account',
        id: input.id,
        email,
        plan: input.plan,
        balance_micro_usd: input.balanceMicroUsd,
        suspended: false,
        extra_usage: input.extraUsage,
        password_hash: input.passwordHash,
        created_at: now,
        updated_at: now,
      };
      try {
        await db.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
              {
                Put: {
                  TableName: tableName,
                  Item: { ...keys.accountEmail(email), entity: 'account_email', account_id: input.id },
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              },
            ],
          }),
        );
      } catch (error) {
        if (isConditionFailure(error)) throw new ConflictError('account_exists', `An account with email ${email} already exists.`);
        throw error;
      }
      return toAccount(item);
    },

    async get(accountId: string): Promise<Account | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.account(accountId), ConsistentRead: true }));
      return Item ? toAccount(Item) : undefined;
    },

    async findByEmail(email: string): Promise<AccountWithSecret | undefined> {
      const { Item: guard } = await db.send(new GetCommand({ TableName: tableName, Key: keys.accountEmail(email), ConsistentRead: true }));
      if (!guard) return undefined;
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.account(guard.account_id as string), ConsistentRead: true }));
      return Item ? entityOf<AccountWithSecret>(Item, [], ACCOUNT_DEFAULTS) : undefined;
    },

    /** Whether any account exists, read from the accounts index (one item at most). */
    async anyExists(): Promise<boolean> {
      const { Items } = await db.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :pk',
          ExpressionAttributeValues: { ':pk': keys.accountsIndex().gsi1pk },
          Limit: 1,
        }),
      );
      return (Items ?? []).length > 0;
    },

    async setSuspended(accountId: string, suspended: boolean): Promise<Account> {
      return update(accountId, { suspended });
    },

    /** Switches extra usage (the wallet pays past a full window, decisions.md); in force on the account's next call. */
    async setExtraUsage(accountId: string, on: boolean): Promise<Account> {
      return update(accountId, { extra_usage: on });
    },

    /**
     * Sets the given overrides (the others stay as they are), or with
     * `reset` removes them all, so the plan's values apply again. Read by
     * every request with the account item, so in force on its next call.
     */
    async setLimits(accountId: string, change: LimitOverrides | 'reset'): Promise<Account> {
      if (change === 'reset') return update(accountId, {}, LIMIT_OVERRIDES);
      const set = LIMIT_OVERRIDES.filter((name) => change[name] !== undefined);
      if (set.length === 0) throw new RangeError('setLimits needs at least one override, or reset');
      return update(accountId, Object.fromEntries(set.map((name) => [name, change[name]])));
    },
  };
}

export type AccountsRepo = ReturnType<typeof accountsRepo>;
