import { defineEndpoint } from '#platform/http/contract.js';
import { SERVICE_TAG } from './tags.js';

// Neither service operation answers a 4xx (no credential, parameter or body
// is read), so neither documents one: redocly's operation-4xx-response warns about both.
export const Health = defineEndpoint({
  id: 'Health',
  method: 'GET',
  path: '/healthz',
  handler: 'functions/health.ts',
  auth: 'none',
  table: 'read',
  operationId: 'health',
  summary: 'Health check',
  description: 'No credentials. 200 once the table answers.',
  tags: [SERVICE_TAG],
  responses: () =>
    import('../openapi/service-responses.js').then(({ HealthStatus, UNAVAILABLE_RETRY }) => ({
      200: { description: 'Every dependency is up.', schema: HealthStatus },
      503: { description: 'A dependency is not reachable yet (`unavailable`).', headers: UNAVAILABLE_RETRY },
    })),
});
