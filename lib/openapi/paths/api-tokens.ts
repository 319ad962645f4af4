import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { CreateTokenBody, ListTokensQuery, RevokeTokenBody } from '../../schemas/api-tokens.js';
import { CreatedToken, ListTokensResponse } from '../responses/api-tokens.js';
import type { Common } from './common.js';

export function registerTokenPaths(registry: OpenAPIRegistry, common: Common): void {
  registry.registerPath({
    method: 'post',
    path: '/v1/api-tokens',
    operationId: 'createApiToken',
    summary: 'Mint an API token',
    description:
      'Authenticated by the browser session cookie only; a bearer token alone is refused with 401. Requires a paid plan and a balance of at least 2.00 USD. The plaintext token is returned once; only its hash is stored.',
    security: common.session,
    request: { body: { content: { 'application/json': { schema: CreateTokenBody } } } },
    responses: {
      201: { description: 'The token, shown once.', content: { 'application/json': { schema: CreatedToken } } },
      401: common.message('No session cookie, or an unknown or ended session.'),
      403: common.message('Free plan, balance below 2.00 USD, or a suspended account.'),
      400: common.message('Body is not JSON, not an object, or has unknown fields.'),
      422: common.message('A field is malformed.'),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/api-tokens',
    operationId: 'listApiTokens',
    summary: 'List live API tokens',
    description: 'Expired and revoked tokens are omitted. Paged with `limit` and `cursor`.',
    security: common.bearer,
    request: { query: ListTokensQuery },
    responses: {
      200: { description: 'A page of tokens.', content: { 'application/json': { schema: ListTokensResponse } } },
      400: common.message('A query parameter is out of range or the cursor is invalid.'),
      401: common.message('Missing, malformed, expired or revoked token.'),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/v1/api-tokens/revoke',
    operationId: 'revokeApiToken',
    summary: 'Revoke an API token',
    description: 'The revoked token answers 401 on its next request, at once. An unknown or foreign id is 404 and changes nothing.',
    security: common.bearer,
    request: { body: { content: { 'application/json': { schema: RevokeTokenBody } } } },
    responses: {
      200: common.message('Revoked.'),
      401: common.message('Missing, malformed, expired or revoked token.'),
      404: common.message('No token with that id in this account.'),
    },
  });
}
