import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { SESSION_TTL_SECONDS } from '#platform/config/limits.js';
import type { Common } from '#platform/openapi/common.js';
import { LoginBody } from '../schemas/auth.js';
import { LoginResponse } from './auth-responses.js';

export function registerAuthPaths(registry: OpenAPIRegistry, common: Common): void {
  const setCookie = (description: string) => ({ 'Set-Cookie': { description, schema: { type: 'string' as const } } });
  registry.registerPath({
    method: 'post',
    path: '/v1/auth/login',
    operationId: 'login',
    summary: 'Open a browser session',
    description: 'Sets `session=<opaque>; HttpOnly; Secure; SameSite=Strict; Path=/` for 12 hours. The cookie is a credential only on POST /v1/api-tokens.',
    tags: ['Sessions'],
    security: common.public,
    request: { body: { content: { 'application/json': { schema: LoginBody } } } },
    responses: {
      200: {
        description: 'Signed in.',
        headers: setCookie(`\`session=<opaque>; HttpOnly; Secure; SameSite=Strict; Path=/; Max-Age=${SESSION_TTL_SECONDS}\`.`),
        content: { 'application/json': { schema: LoginResponse } },
      },
      400: common.problem('Body is not JSON, not an object, or has unknown fields (`invalid_json`, `invalid_body`, `unknown_field`).'),
      401: common.problems.unauthorized('Wrong email or password (`unauthorized`); an unknown email answers alike.'),
      422: common.problem('A field is missing or malformed (`validation_failed`).'),
      500: common.problems.internal,
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/v1/auth/logout',
    operationId: 'logout',
    summary: 'End the browser session',
    description:
      'Ends the session named by the `session` cookie, if any, and clears the cookie. No credential is required and there is no 4xx: without a cookie, or with an unknown one, it answers 204 all the same.',
    tags: ['Sessions'],
    security: common.public,
    responses: {
      204: {
        description: 'The session, if any, is ended and the cookie cleared.',
        headers: setCookie('`session=; HttpOnly; Secure; SameSite=Strict; Path=/; Max-Age=0`.'),
      },
      500: common.problems.internal,
    },
  });
}
