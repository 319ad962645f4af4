import { defineEndpoint } from '#platform/http/contract.js';
import { USAGE_TAG } from './tags.js';

export const UsageGet = defineEndpoint({
  id: 'UsageGet',
  method: 'GET',
  path: '/v2/usage',
  handler: 'functions/usage/get.ts',
  auth: 'bearer',
  table: 'read',
  operationId: 'getUsage',
  summary: "The caller's usage windows and what funds the next call",
  description:
    'The usage-window quota document: each window’s share used of the allowance in force, its reset when full, the extra usage state and the wallet, and `mode`. With `mode` `blocked` it also carries `error` and `retry_after_seconds`, as the 429 of a creation would. Beyond the specification.',
  tags: [USAGE_TAG],
  responses: () =>
    import('../openapi/usage-responses.js').then(({ QuotaDocumentSchema }) => ({
      200: { description: 'The quota document.', schema: QuotaDocumentSchema },
    })),
});
