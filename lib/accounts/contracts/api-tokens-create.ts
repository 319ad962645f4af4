import { defineEndpoint } from '#platform/http/contract.js';
import { CreateTokenBody } from '../schemas/api-tokens.js';
import { API_TOKENS_TAG } from './tags.js';

/** The token calls answer errors as `{message}` (specification, API tokens), not as problem documents. */
export const ApiTokensCreate = defineEndpoint({
  id: 'ApiTokensCreate',
  method: 'POST',
  path: '/v1/api-tokens',
  handler: 'functions/api-tokens/create.ts',
  auth: 'session',
  errors: 'message',
  body: CreateTokenBody,
  table: 'readwrite',
  operationId: 'createApiToken',
  summary: 'Mint an API token',
  description:
    'Authenticated by the browser session cookie only; a bearer token alone is refused with 401. Requires a paid plan and a balance of at least 2.00 USD. The plaintext token is returned once; only its hash is stored. Errors are `{message}` bodies.',
  tags: [API_TOKENS_TAG],
  responses: () =>
    import('../openapi/api-tokens-responses.js').then(({ CreatedToken }) => ({
      201: { description: 'The token, shown once.', schema: CreatedToken },
      401: 'No session cookie, or an unknown or ended session.',
      403: 'Free plan, balance below 2.00 USD, or a suspended account.',
      422: 'A field is malformed.',
    })),
});
