import { defineEndpoint } from '#platform/http/contract.js';
import { SERVICE_TAG } from './tags.js';

export const OpenApi = defineEndpoint({
  id: 'OpenApi',
  method: 'GET',
  path: '/openapi.json',
  handler: 'functions/openapi.ts',
  auth: 'none',
  table: 'none',
  operationId: 'openapi',
  summary: 'This OpenAPI 3.1 document',
  description: 'No credentials. Its server is the deployment’s base URL.',
  tags: [SERVICE_TAG],
  responses: () =>
    import('../openapi/service-responses.js').then(({ OpenApiDocument }) => ({
      200: { description: 'The document.', schema: OpenApiDocument },
    })),
});
