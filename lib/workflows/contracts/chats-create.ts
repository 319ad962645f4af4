import { defineEndpoint } from '#platform/http/contract.js';
import { CreateChatBody } from '../schemas/chats.js';
import { CHATS_TAG } from './tags.js';

export const ChatsCreate = defineEndpoint({
  id: 'ChatsCreate',
  method: 'POST',
  path: '/v1/chats',
  handler: 'functions/chats/create.ts',
  auth: 'bearer',
  body: CreateChatBody,
  table: 'readwrite',
  operationId: 'createChat',
  summary: 'Create a chat',
  description: 'The chat id is the context memory id. `machine_id` stays null until the chat’s first run binds it to a machine.',
  tags: [CHATS_TAG],
  responses: () =>
    import('../openapi/chats-responses.js').then(({ ChatSchema }) => ({
      201: { description: 'The chat.', schema: ChatSchema },
      422: 'A field is malformed, or `workflow_id` is not a workflow of this account (`validation_failed` naming `/workflow_id`; unknown and foreign ids answer alike).',
    })),
});
