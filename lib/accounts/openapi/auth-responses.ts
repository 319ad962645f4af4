import * as z from 'zod';
import { SESSION_TTL_SECONDS } from '#platform/config/limits.js';
import { withExample } from '#platform/http/common-schemas.js';
import type { HeadersDoc } from '#platform/http/contract.js';

export const LoginResponse = withExample(z.object({ account_id: z.string().uuid(), expires_at: z.string().datetime() }).meta({ id: 'LoginResponse' }), {
  account_id: '0f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a',
  expires_at: '2026-01-31T21:30:00.000Z',
});

const setCookie = (description: string): HeadersDoc => ({ 'Set-Cookie': { description, schema: { type: 'string' } } });

export const SESSION_SET = setCookie(`\`session=<opaque>; HttpOnly; Secure; SameSite=Strict; Path=/; Max-Age=${SESSION_TTL_SECONDS}\`.`);

export const SESSION_CLEARED = setCookie('`session=; HttpOnly; Secure; SameSite=Strict; Path=/; Max-Age=0`.');
