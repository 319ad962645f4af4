import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { LoginBody } from '../../schemas/auth.js';
import { LoginResponse } from '../responses/auth.js';
import type { Common } from './common.js';

export function registerAuthPaths(registry: OpenAPIRegistry, common: Common): void {
  registry.registerPath({
    method: 'post',
    path: '/v1/auth/login',
    operationId: 'login',
    summary: 'Open a browser session',
    description:
      'Sets `session=<opaque>; HttpOnly; Secure; SameSite=Strict; Path=/` for 12 hours. The cookie is a credential only on POST /v1/api-tokens.',
    request: { body: { content: { 'application/json': { schema: LoginBody } } } },
    responses: {
      200: { description: 'Signed in.', headers: { 'Set-Cookie': { schema: { type: 'string' } } }, content: { 'application/json': { schema: LoginResponse } } },
      400: common.problem('Body is not JSON, not an object, or has unknown fields.'),
      401: common.problem('Wrong email or password.'),
      422: common.problem('A field is missing or malformed.'),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/v1/auth/logout',
    operationId: 'logout',
    summary: 'End the browser session',
    responses: { 204: { description: 'The session, if any, is ended and the cookie cleared.' } },
  });
}
