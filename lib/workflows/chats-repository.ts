import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '#platform/errors.js';
import { entityOf } from '#platform/table/items.js';
import { keys } from '#platform/table/keys.js';
import { defaultTable, isConditionFailure, type TableRef } from '#platform/table/table.js';
import { isUuid } from '#platform/uuid.js';
import type { Chat } from './model.js';

/** Null until set. */
const toChat = (item: Record<string, unknown>): Chat => entityOf<Chat>(item, [], { title: null, workflow_id: null, machine_id: null, last_run_id: null });

export function chatsRepo(table: TableRef = defaultTable()) {
  const { db, tableName } = table;

  return {
    async create(chat: Chat): Promise<Chat> {
      try {
        await db.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...keys.chat(chat.id), entity: 'chat', ...chat },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
      } catch (error) {
        if (isConditionFailure(error)) throw new ConflictError('chat_exists', `A chat with id ${chat.id} already exists.`);
        throw error;
      }
      return chat;
    },

    /** Undefined for a malformed, unknown or other account's chat id alike. */
    async get(accountId: string, chatId: string): Promise<Chat | undefined> {
      if (!isUuid(chatId)) return undefined;
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.chat(chatId.toLowerCase()), ConsistentRead: true }));
      return Item && Item.account_id === accountId ? toChat(Item) : undefined;
    },
  };
}

/**
 * A run joins a chat, as an item of the run's creating transaction: the
 * chat is bound to the run's machine by its first run and to no other, and
 * becomes the chat's newest run on condition that the newest is still the
 * one the caller read (two runs created at once on one chat: one retries).
 */
export const chatRunJoin = (tableName: string, chat: Pick<Chat, 'id' | 'last_run_id'>, machineId: string, runId: string) => ({
  TableName: tableName,
  Key: keys.chat(chat.id),
  UpdateExpression: 'SET machine_id = :machine, last_run_id = :run',
  ConditionExpression:
    'attribute_exists(pk) AND (attribute_not_exists(machine_id) OR machine_id = :null OR machine_id = :machine) AND ' +
    (chat.last_run_id === null ? '(attribute_not_exists(last_run_id) OR last_run_id = :null)' : 'last_run_id = :last'),
  ExpressionAttributeValues: { ':machine': machineId, ':run': runId, ':null': null, ...(chat.last_run_id === null ? {} : { ':last': chat.last_run_id }) },
});

export type ChatsRepo = ReturnType<typeof chatsRepo>;
