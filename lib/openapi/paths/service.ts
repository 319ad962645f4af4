import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';
import type { Common } from './common.js';

export function registerServicePaths(registry: OpenAPIRegistry, common: Common): void {
  registry.registerPath({
    method: 'get',
    path: '/healthz',
    operationId: 'health',
    summary: 'Health check',
    description: 'No credentials. 200 once the table answers.',
    responses: {
      200: { description: 'Every dependency is up.', content: { 'application/json': { schema: z.object({ status: z.literal('ok') }) } } },
      503: common.problem('A dependency is not reachable yet.'),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/openapi.json',
    operationId: 'openapi',
    summary: 'This OpenAPI 3.1 document',
    responses: { 200: { description: 'The document.', content: { 'application/json': { schema: z.object({}).passthrough() } } } },
  });
}
