import { defineEndpoint } from '#platform/http/contract.js';
import { CHATS_TAG } from './tags.js';

export const ChatsGet = defineEndpoint({
  id: 'ChatsGet',
  method: 'GET',
  path: '/v1/chats/{id}',
  handler: 'functions/chats/get.ts',
  auth: 'bearer',
  params: { id: { description: 'The chat id. A malformed, unknown or other account’s id answers the same 404.' } },
  table: 'read',
  operationId: 'getChat',
  summary: 'Get a chat',
  description: 'The chat, with the machine its first run bound it to (`machine_id`, null before that run).',
  tags: [CHATS_TAG],
  responses: () =>
    import('../openapi/chats-responses.js').then(({ ChatSchema }) => ({
      200: { description: 'The chat.', schema: ChatSchema },
      404: 'No such chat (`not_found`).',
    })),
});
