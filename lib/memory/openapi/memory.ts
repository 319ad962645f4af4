import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';
import type { Common } from '#platform/openapi/common.js';
import { MemoryQuery } from '../schemas.js';
import { MemoryPage } from './memory-responses.js';

export function registerMemoryPaths(registry: OpenAPIRegistry, common: Common): void {
  registry.registerPath({
    method: 'get',
    path: '/v1/chat-memory/{agentNodeId}',
    operationId: 'getChatMemory',
    summary: "An agent node's context memory",
    description: 'Messages the agent node wrote to the context memory, oldest first, paged by an opaque cursor.',
    tags: ['Chat memory'],
    security: common.bearer,
    request: { params: z.object({ agentNodeId: z.uuid() }), query: MemoryQuery },
    responses: {
      200: { description: 'A page of messages.', content: { 'application/json': { schema: MemoryPage } } },
      400: common.problem('`chat_id` missing, `limit` out of range (`invalid_parameter`), or a bad cursor (`cursor_invalid`, `cursor_filter_mismatch`).'),
      401: common.problems.unauthorized('Missing, malformed, expired or revoked token (`unauthorized`).'),
      403: common.problems.suspended,
      404: common.problem('Malformed agent node id (`not_found`). A well-formed id with no messages answers an empty page.'),
      500: common.problems.internal,
    },
  });
}
