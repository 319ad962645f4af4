import { BatchGetCommand, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { NotFoundError } from '#platform/errors.js';
import { entityOf } from '#platform/table/items.js';
import { keys, ttlFromDate } from '#platform/table/keys.js';
import { queryPage } from '#platform/table/queries.js';
import { defaultTable, isConditionFailure, type TableRef } from '#platform/table/table.js';
import { accountsRepo } from './accounts-repository.js';
import type { Account, StoredToken } from './model.js';

const toToken = (item: Record<string, unknown>): StoredToken => entityOf<StoredToken>(item);

const isLive = (item: Record<string, unknown> | undefined, now: Date): boolean => !!item && Date.parse(item.expires_at as string) > now.getTime();

export function tokensRepo(table: TableRef = defaultTable()) {
  const { db, tableName } = table;
  const accounts = accountsRepo(table);

  return {
    /** Two items: the credential (by hash) and the account's listing entry (by id). */
    async create(token: StoredToken): Promise<void> {
      const expiresAt = new Date(token.expires_at);
      const common = { entity: 'token', ...token, ttl: ttlFromDate(expiresAt) };
      await db.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: tableName, Item: { ...keys.tokenByHash(token.token_hash), ...common }, ConditionExpression: 'attribute_not_exists(pk)' } },
            {
              Put: {
                TableName: tableName,
                Item: { ...keys.accountToken(token.account_id, token.id), ...common },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
        }),
      );
    },

    /**
     * One round trip for the credential and its account: the token string
     * names the account, so both items are fetched in a single BatchGetItem.
     * Strongly consistent, no cache: a revoked token fails at once.
     */
    async authenticate(tokenHash: string, accountId: string, now = new Date()): Promise<{ token: StoredToken; account: Account } | undefined> {
      const tokenKey = keys.tokenByHash(tokenHash);
      const accountKey = keys.account(accountId);
      let request: Record<string, { Keys: Array<Record<string, unknown>>; ConsistentRead: boolean }> = {
        [tableName]: { Keys: [tokenKey, accountKey], ConsistentRead: true },
      };
      const items: Array<Record<string, unknown>> = [];
      for (let attempt = 0; attempt < 5 && Object.keys(request).length > 0; attempt++) {
        const result = await db.send(new BatchGetCommand({ RequestItems: request }));
        items.push(...(result.Responses?.[tableName] ?? []));
        request = (result.UnprocessedKeys ?? {}) as typeof request;
        if (Object.keys(request).length > 0) await new Promise((r) => setTimeout(r, 20 * 2 ** attempt));
      }
      const tokenItem = items.find((i) => i.pk === tokenKey.pk && i.sk === tokenKey.sk);
      const accountItem = items.find((i) => i.pk === accountKey.pk && i.sk === accountKey.sk);
      if (!tokenItem || !accountItem || !isLive(tokenItem, now) || tokenItem.account_id !== accountId) return undefined;
      return { token: toToken(tokenItem), account: accounts.toAccount(accountItem) };
    },

    /**
     * Live tokens of an account in id order. Expired ones are filtered out
     * even before TTL removes them, so the loop reads on until it has one
     * more live token than the page holds (that one only proves has_more).
     */
    async list(accountId: string, options: { limit: number; after?: string }, now = new Date()) {
      const prefix = keys.accountTokenPrefix(accountId);
      const page = await queryPage(
        db,
        {
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          FilterExpression: 'expires_at > :now',
          ExpressionAttributeValues: { ':pk': prefix.pk, ':prefix': prefix.skPrefix, ':now': now.toISOString() },
          ConsistentRead: true,
        },
        { limit: options.limit, startKey: options.after ? { pk: prefix.pk, sk: options.after } : undefined },
      );
      const tokens = page.items.map(toToken);
      const hasMore = page.more;
      return { tokens, nextAfter: hasMore ? keys.accountToken(accountId, tokens.at(-1)!.id).sk : undefined };
    },

    async getForAccount(accountId: string, tokenId: string, now = new Date()): Promise<StoredToken | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.accountToken(accountId, tokenId), ConsistentRead: true }));
      return Item && isLive(Item, now) ? toToken(Item) : undefined;
    },

    /** Deletes both items; the credential is gone before this returns. */
    async delete(token: StoredToken): Promise<void> {
      try {
        await db.send(
          new TransactWriteCommand({
            TransactItems: [
              { Delete: { TableName: tableName, Key: keys.accountToken(token.account_id, token.id), ConditionExpression: 'attribute_exists(pk)' } },
              { Delete: { TableName: tableName, Key: keys.tokenByHash(token.token_hash) } },
            ],
          }),
        );
      } catch (error) {
        if (isConditionFailure(error)) throw new NotFoundError('No such token.');
        throw error;
      }
    },
  };
}

export type TokensRepo = ReturnType<typeof tokensRepo>;
