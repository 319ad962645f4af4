import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';
import type { Common } from '#platform/openapi/common.js';

/**
 * Neither operation answers a 4xx (no credential, parameter or body is read),
 * so neither documents one: redocly's operation-4xx-response warns about both.
 */
export function registerServicePaths(registry: OpenAPIRegistry, common: Common): void {
  registry.registerPath({
    method: 'get',
    path: '/healthz',
    operationId: 'health',
    summary: 'Health check',
    description: 'No credentials. 200 once the table answers.',
    tags: ['Service'],
    security: common.public,
    responses: {
      200: { description: 'Every dependency is up.', content: { 'application/json': { schema: z.object({ status: z.literal('ok') }) } } },
      503: common.problem('A dependency is not reachable yet (`unavailable`).', common.headers.retryAfter('always `1`')),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/openapi.json',
    operationId: 'openapi',
    summary: 'This OpenAPI 3.1 document',
    description: 'No credentials. Its server is the deployment’s base URL.',
    tags: ['Service'],
    security: common.public,
    responses: { 200: { description: 'The document.', content: { 'application/json': { schema: z.object({}).passthrough() } } } },
  });
}
