import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';
import { MemoryQuery } from '../../schemas/memory.js';
import { MemoryPage } from '../responses/memory.js';
import type { Common } from './common.js';

export function registerMemoryPaths(registry: OpenAPIRegistry, common: Common): void {
  registry.registerPath({
    method: 'get',
    path: '/v1/chat-memory/{agentNodeId}',
    operationId: 'getChatMemory',
    summary: "An agent node's context memory",
    description: 'Messages the agent node wrote to the context memory, oldest first, paged by an opaque cursor.',
    security: common.bearer,
    request: { params: z.object({ agentNodeId: z.uuid() }), query: MemoryQuery },
    responses: {
      200: { description: 'A page of messages.', content: { 'application/json': { schema: MemoryPage } } },
      400: common.problem('chat_id missing, limit out of range, or a bad cursor.'),
      401: common.problem('Missing, malformed, expired or revoked token.'),
      404: common.problem('Malformed agent node id.'),
    },
  });
}
