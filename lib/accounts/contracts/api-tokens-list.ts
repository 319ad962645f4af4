import { defineEndpoint } from '#platform/http/contract.js';
import { ListTokensQuery } from '../schemas/api-tokens.js';
import { API_TOKENS_TAG } from './tags.js';

export const ApiTokensList = defineEndpoint({
  id: 'ApiTokensList',
  method: 'GET',
  path: '/v1/api-tokens',
  handler: 'functions/api-tokens/list.ts',
  auth: 'bearer',
  errors: 'message',
  query: ListTokensQuery,
  table: 'read',
  serviceKey: true,
  operationId: 'listApiTokens',
  summary: 'List live API tokens',
  description: 'Expired and revoked tokens are omitted. Paged with `limit` and `cursor`. Errors are `{message}` bodies.',
  tags: [API_TOKENS_TAG],
  responses: () =>
    import('../openapi/api-tokens-responses.js').then(({ ListTokensResponse }) => ({
      200: { description: 'A page of tokens.', schema: ListTokensResponse },
      400: 'A query parameter is out of range or the cursor is invalid.',
    })),
});
