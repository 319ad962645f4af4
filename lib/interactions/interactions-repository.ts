import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { newestFirstPage } from '#platform/table/index-page.js';
import { keys } from '#platform/table/keys.js';
import { defaultTable, isConditionFailure, type TableRef } from '#platform/table/table.js';
import { equalityFilter } from '#platform/table/update-expressions.js';
import type { InteractionStatus } from './model.js';

export type { InteractionStatus } from './model.js';

export type InteractionType = 'approval' | 'answer';

export interface Interaction {
  id: string;
  type: InteractionType;
  status: InteractionStatus;
  prompt: string | null;
  run_id: string | null;
  workflow_request_id: string | null;
  node_execution_id: string | null;
  node_id: string | null;
  response: Record<string, unknown> | null;
  created_at: string;
  resolved_at: string | null;
  account_id: string;
}

const view = (item: Record<string, unknown>): Interaction => {
  const { pk: _a, sk: _b, gsi1pk: _c, gsi1sk: _d, entity: _e, ...rest } = item;
  return rest as unknown as Interaction;
};

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

    /** Resolves a pending interaction; undefined when it was no longer pending. */
    async resolve(id: string, status: Exclude<InteractionStatus, 'pending'>, response: Record<string, unknown> | null): Promise<Interaction | undefined> {
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.interaction(id),
            UpdateExpression: 'SET #status = :status, #response = :response, resolved_at = :now',
            ConditionExpression: '#status = :pending',
            ExpressionAttributeNames: { '#status': 'status', '#response': 'response' },
            ExpressionAttributeValues: { ':status': status, ':response': response, ':now': new Date().toISOString(), ':pending': 'pending' },
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
      const page = await newestFirstPage(db, tableName, keys.interactionIndexPartition(accountId), equalityFilter(filters), options);
      return { interactions: page.items.map(view), next: page.next };
    },
  };
}

export type InteractionsRepo = ReturnType<typeof interactionsRepo>;
