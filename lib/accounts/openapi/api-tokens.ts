import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Common } from '#platform/openapi/common.js';
import { CreateTokenBody, ListTokensQuery, RevokeTokenBody } from '../schemas/api-tokens.js';
import { CreatedToken, ListTokensResponse } from './api-tokens-responses.js';

/** The token calls answer errors as `{message}` (specification, API tokens), not as problem documents. */
export function registerTokenPaths(registry: OpenAPIRegistry, common: Common): void {
  const { body: message, unauthorized, suspended, internal } = common.messages;
  const tokenUnauthorized = unauthorized('Missing, malformed, expired or revoked token.');
  const badBody = message('Body is not JSON, not an object, or has unknown fields.');
  registry.registerPath({
    method: 'post',
    path: '/v1/api-tokens',
    operationId: 'createApiToken',
    summary: 'Mint an API token',
    description:
      'Authenticated by the browser session cookie only; a bearer token alone is refused with 401. Requires a paid plan and a balance of at least 2.00 USD. The plaintext token is returned once; only its hash is stored. Errors are `{message}` bodies.',
    tags: ['API tokens'],
    security: common.session,
    request: { body: { content: { 'application/json': { schema: CreateTokenBody } } } },
    responses: {
      201: { description: 'The token, shown once.', content: { 'application/json': { schema: CreatedToken } } },
      400: badBody,
      401: unauthorized('No session cookie, or an unknown or ended session.'),
      403: message('Free plan, balance below 2.00 USD, or a suspended account.'),
      422: message('A field is malformed.'),
      500: internal,
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/api-tokens',
    operationId: 'listApiTokens',
    summary: 'List live API tokens',
    description: 'Expired and revoked tokens are omitted. Paged with `limit` and `cursor`. Errors are `{message}` bodies.',
    tags: ['API tokens'],
    security: common.bearer,
    request: { query: ListTokensQuery },
    responses: {
      200: { description: 'A page of tokens.', content: { 'application/json': { schema: ListTokensResponse } } },
      400: message('A query parameter is out of range or the cursor is invalid.'),
      401: tokenUnauthorized,
      403: suspended,
      500: internal,
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/v1/api-tokens/revoke',
    operationId: 'revokeApiToken',
    summary: 'Revoke an API token',
    description:
      'The revoked token answers 401 on its next request, at once. An unknown or foreign id is 404 and changes nothing. Errors are `{message}` bodies.',
    tags: ['API tokens'],
    security: common.bearer,
    request: { body: { content: { 'application/json': { schema: RevokeTokenBody } } } },
    responses: {
      200: message('Revoked.'),
      400: badBody,
      401: tokenUnauthorized,
      403: suspended,
      404: message('No token with that id in this account.'),
      422: message('`token_id` is missing or malformed.'),
      500: internal,
    },
  });
}
