import { randomUUID } from 'node:crypto';
import { NotFoundError, ValidationError } from '#platform/errors.js';
import type { ChatsRepo } from './chats-repository.js';
import type { Chat } from './model.js';
import type { WorkflowsRepo } from './workflows-repository.js';

export const chatView = (chat: Chat) => ({
  id: chat.id,
  title: chat.title,
  workflow_id: chat.workflow_id,
  machine_id: chat.machine_id,
  created_at: chat.created_at,
});

/**
 * A new chat. A `workflow_id` that is malformed, unknown or another
 * account's is refused alike: 422 validation_failed naming `/workflow_id`.
 */
export async function createChat(
  deps: { chats: ChatsRepo; workflows: WorkflowsRepo },
  accountId: string,
  input: { workflow_id?: string | null; title?: string | null },
  now = new Date(),
): Promise<Chat> {
  let workflowId: string | null = null;
  if (input.workflow_id !== undefined && input.workflow_id !== null) {
    const workflow = await deps.workflows.get(accountId, input.workflow_id);
    if (!workflow) {
      throw new ValidationError([{ name: '/workflow_id', location: 'body', reason: 'is not a workflow of this account', code: 'not_found' }]);
    }
    workflowId = workflow.id;
  }
  return deps.chats.create({
    id: randomUUID(),
    account_id: accountId,
    title: input.title ?? null,
    workflow_id: workflowId,
    machine_id: null,
    last_run_id: null,
    created_at: now.toISOString(),
  });
}

export async function findChat(chats: ChatsRepo, accountId: string, chatId: string): Promise<Chat> {
  const chat = await chats.get(accountId, chatId);
  if (!chat) throw new NotFoundError('No such chat.');
  return chat;
}
