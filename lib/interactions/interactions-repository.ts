import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { newestFirstPage } from '#platform/table/index-page.js';
import { entityOf } from '#platform/table/items.js';
import { keys } from '#platform/table/keys.js';
import { defaultTable, isConditionFailure, type TableRef } from '#platform/table/table.js';
import { equalityFilter } from '#platform/table/update-expressions.js';
import type { Interaction, InteractionStatus } from './model.js';

/** A status filter that sees expiry as readers do (statusAt): stored `pending` past `expires_at` is `expired`. */
function statusFilter(status: InteractionStatus | undefined, nowIso: string) {
  if (status === undefined) return undefined;
  // DynamoDB refuses values an expression does not use, so each branch names only its own.
  const live = '(attribute_not_exists(expires_at) OR attribute_type(expires_at, :null_type) OR expires_at > :now)';
  const clock = { ':now': nowIso, ':null_type': 'NULL', ':pending': 'pending' };
  if (status === 'pending') return { expression: `#status = :pending AND ${live}`, values: clock };
  if (status === 'expired') return { expression: `(#status = :wanted OR (#status = :pending AND NOT ${live}))`, values: { ...clock, ':wanted': status } };
  return { expression: '#status = :wanted', values: { ':wanted': status } };
}

const view = (item: Record<string, unknown>): Interaction => entityOf<Interaction>(item, [], { expires_at: null });

export function interactionsRepo(table: TableRef = defaultTable()) {
  const { db, tableName } = table;
  return {
    /** Creates the interaction once; a redelivered node task finds it already there. */
    async createOnce(interaction: Interaction): Promise<Interaction> {
      try {
        await db.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              ...keys.interaction(interaction.id),
              ...keys.interactionIndex(interaction.account_id, interaction.created_at, interaction.id),
              entity: 'interaction',
              ...interaction,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return interaction;
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        return (await this.get(interaction.id))!;
      }
    },

    async get(id: string): Promise<Interaction | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.interaction(id), ConsistentRead: true }));
      return Item ? view(Item) : undefined;
    },

    /**
     * Resolves a pending interaction; undefined when it was no longer
     * pending. An answer must also come before `expires_at` (checked in the
     * write: expiry is never trusted to have been written).
     */
    async resolve(id: string, status: Exclude<InteractionStatus, 'pending'>, response: Record<string, unknown> | null): Promise<Interaction | undefined> {
      const now = new Date().toISOString();
      const beforeExpiry =
        status === 'answered' ? ' AND (attribute_not_exists(expires_at) OR attribute_type(expires_at, :null_type) OR expires_at > :now)' : '';
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.interaction(id),
            UpdateExpression: 'SET #status = :status, #response = :response, resolved_at = :now',
            ConditionExpression: `#status = :pending${beforeExpiry}`,
            ExpressionAttributeNames: { '#status': 'status', '#response': 'response' },
            ExpressionAttributeValues: {
              ':status': status,
              ':response': response,
              ':now': now,
              ':pending': 'pending',
              ...(beforeExpiry ? { ':null_type': 'NULL' } : {}),
            },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return view(Attributes!);
      } catch (error) {
        if (isConditionFailure(error)) return undefined;
        throw error;
      }
    },

    /** The account's interactions, newest first, optionally by run, request or status. */
    async list(
      accountId: string,
      filters: { run_id?: string; workflow_request_id?: string; status?: InteractionStatus },
      options: { limit: number; after?: { gsi1sk: string; pk: string; sk: string } },
    ) {
      const { status, ...others } = filters;
      const equal = equalityFilter(others);
      const byStatus = statusFilter(status, new Date().toISOString());
      const filter =
        equal || byStatus
          ? {
              expression: [equal?.expression, byStatus?.expression].filter(Boolean).join(' AND '),
              names: { ...equal?.names, ...(byStatus ? { '#status': 'status' } : {}) },
              values: { ...equal?.values, ...byStatus?.values },
            }
          : undefined;
      const page = await newestFirstPage(db, tableName, keys.interactionIndexPartition(accountId), filter, options);
      return { interactions: page.items.map(view), next: page.next };
    },
  };
}

export type InteractionsRepo = ReturnType<typeof interactionsRepo>;
