import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { entityOf } from '#platform/table/items.js';
import { keys } from '#platform/table/keys.js';
import { queryPage } from '#platform/table/queries.js';
import { defaultTable, isConditionFailure, type TableRef } from '#platform/table/table.js';
import type { MemoryMessage } from './model.js';

// The account is the item's own: readers filter on it, the message does not show it.
const view = (item: Record<string, unknown>): MemoryMessage => entityOf<MemoryMessage>(item, ['account_id']);

export function memoryRepo(table: TableRef = defaultTable()) {
  const { db, tableName } = table;
  return {
    /**
     * Writes one exchange (the user message and the assistant's answer) at
     * keys derived from the node execution, all or nothing: a retried
     * execution that already wrote its exchange writes nothing again.
     */
    async appendExchange(input: {
      accountId: string;
      contextMemoryId: string;
      agentNodeId: string;
      /** Stable per node execution: `<created_at>#<execution id>`. */
      order: string;
      executionId: string;
      user: string;
      assistant: string;
    }): Promise<void> {
      const now = new Date().toISOString();
      const item = (index: number, role: 'user' | 'assistant', content: string) => ({
        Put: {
          TableName: tableName,
          Item: {
            ...keys.memoryMessage(input.contextMemoryId, input.agentNodeId, `${input.order}#${index}`),
            entity: 'memory_message',
            id: `msg_${input.executionId}_${index}`,
            role,
            content,
            context_memory_id: input.contextMemoryId,
            agent_node_id: input.agentNodeId,
            account_id: input.accountId,
            created_at: now,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      });
      try {
        await db.send(new TransactWriteCommand({ TransactItems: [item(0, 'user', input.user), item(1, 'assistant', input.assistant)] }));
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    },

    /** A page of the account's messages, oldest first. */
    async page(accountId: string, contextMemoryId: string, agentNodeId: string, options: { limit: number; after?: string }) {
      const prefix = keys.memoryPrefix(contextMemoryId, agentNodeId);
      const { items, more } = await queryPage(
        db,
        {
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          FilterExpression: 'account_id = :account',
          ExpressionAttributeValues: { ':pk': prefix.pk, ':prefix': prefix.skPrefix, ':account': accountId },
          ConsistentRead: true,
        },
        { limit: options.limit, startKey: options.after ? { pk: prefix.pk, sk: options.after } : undefined },
      );
      return { messages: items.map(view), nextAfter: more ? (items.at(-1)!.sk as string) : undefined };
    },

    /** The most recent `max` messages, oldest first: what an agent sees of its history. */
    async recent(accountId: string, contextMemoryId: string, agentNodeId: string, max = 50): Promise<MemoryMessage[]> {
      const prefix = keys.memoryPrefix(contextMemoryId, agentNodeId);
      const { Items } = await db.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          FilterExpression: 'account_id = :account',
          ExpressionAttributeValues: { ':pk': prefix.pk, ':prefix': prefix.skPrefix, ':account': accountId },
          ScanIndexForward: false,
          Limit: max,
          ConsistentRead: true,
        }),
      );
      return (Items ?? []).map(view).reverse();
    },
  };
}

export type MemoryRepo = ReturnType<typeof memoryRepo>;
