import { defineEndpoint } from '#platform/http/contract.js';
import { MemoryQuery } from '../schemas.js';
import { CHAT_MEMORY_TAG } from './tags.js';

export const ChatMemoryGet = defineEndpoint({
  id: 'ChatMemoryGet',
  method: 'GET',
  path: '/v1/chat-memory/{agentNodeId}',
  handler: 'functions/chat-memory/get.ts',
  auth: 'bearer',
  params: { agentNodeId: { format: 'uuid' } },
  query: MemoryQuery,
  table: 'read',
  serviceKey: true,
  operationId: 'getChatMemory',
  summary: "An agent node's context memory",
  description: 'Messages the agent node wrote to the context memory, oldest first, paged by an opaque cursor.',
  tags: [CHAT_MEMORY_TAG],
  responses: () =>
    import('../openapi/memory-responses.js').then(({ MemoryPage }) => ({
      200: { description: 'A page of messages.', schema: MemoryPage },
      400: '`chat_id` missing or longer than 200 characters, `limit` out of range (`invalid_parameter`), or a bad cursor (`cursor_invalid`, `cursor_filter_mismatch`).',
      404: 'Malformed agent node id, or a `chat_id` that is neither a chat of the caller’s nor a request of theirs run without a chat: unknown and another account’s alike (`not_found`). The caller’s chat with no messages for this node answers an empty page.',
    })),
});
