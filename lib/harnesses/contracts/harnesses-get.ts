import { defineEndpoint } from '#platform/http/contract.js';
import { HarnessIdParams } from './params.js';
import { HARNESSES_TAG } from './tags.js';

export const HarnessesGet = defineEndpoint({
  id: 'HarnessesGet',
  method: 'GET',
  path: '/v2/harnesses/{id}',
  handler: 'functions/harnesses/get.ts',
  auth: 'bearer',
  params: HarnessIdParams,
  table: 'read',
  operationId: 'getHarness',
  summary: 'Get a harness',
  description: 'The harness with its parsed configuration (`config`: harness.json with its defaults) and every file, in the order they were sent.',
  tags: [HARNESSES_TAG],
  responses: () =>
    import('../openapi/harnesses-responses.js').then(({ HarnessSchema, HARNESS_NOT_FOUND }) => ({
      200: { description: 'The harness.', schema: HarnessSchema },
      404: HARNESS_NOT_FOUND,
    })),
});
