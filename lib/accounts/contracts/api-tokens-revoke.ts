import { defineEndpoint } from '#platform/http/contract.js';
import { RevokeTokenBody } from '../schemas/api-tokens.js';
import { API_TOKENS_TAG } from './tags.js';

export const ApiTokensRevoke = defineEndpoint({
  id: 'ApiTokensRevoke',
  method: 'POST',
  path: '/v1/api-tokens/revoke',
  handler: 'functions/api-tokens/revoke.ts',
  auth: 'bearer',
  errors: 'message',
  body: RevokeTokenBody,
  table: 'readwrite',
  operationId: 'revokeApiToken',
  summary: 'Revoke an API token',
  description:
    'The revoked token answers 401 on its next request, at once. An unknown or foreign id is 404 and changes nothing. Errors are `{message}` bodies.',
  tags: [API_TOKENS_TAG],
  responses: () =>
    import('../openapi/api-tokens-responses.js').then(({ RevokedMessage }) => ({
      200: { description: 'Revoked.', schema: RevokedMessage },
      404: 'No token with that id in this account.',
      422: '`token_id` is missing or malformed.',
    })),
});
