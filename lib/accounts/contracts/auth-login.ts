import { defineEndpoint } from '#platform/http/contract.js';
import { LoginBody } from '../schemas/auth.js';
import { SESSIONS_TAG } from './tags.js';

export const AuthLogin = defineEndpoint({
  id: 'AuthLogin',
  method: 'POST',
  path: '/v1/auth/login',
  handler: 'functions/auth/login.ts',
  auth: 'none',
  body: LoginBody,
  table: 'readwrite',
  memoryMb: 256,
  operationId: 'login',
  summary: 'Open a browser session',
  description: 'Sets `session=<opaque>; HttpOnly; Secure; SameSite=Strict; Path=/` for 12 hours. The cookie is a credential only on POST /v1/api-tokens.',
  tags: [SESSIONS_TAG],
  responses: () =>
    import('../openapi/auth-responses.js').then(({ LoginResponse, SESSION_SET }) => ({
      200: { description: 'Signed in.', headers: SESSION_SET, schema: LoginResponse },
      400: 'Body is not JSON, not an object, or has unknown fields (`invalid_json`, `invalid_body`, `unknown_field`).',
      401: 'Wrong email or password (`unauthorized`); an unknown email answers alike.',
      422: 'A field is missing or malformed (`validation_failed`).',
    })),
});
