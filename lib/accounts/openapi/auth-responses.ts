import * as z from 'zod';
import { SESSION_TTL_SECONDS } from '#platform/config/limits.js';
import type { HeadersDoc } from '#platform/http/contract.js';

export const LoginResponse = z.object({ account_id: z.string().uuid(), expires_at: z.string().datetime() }).meta({ id: 'LoginResponse' });

const setCookie = (description: string): HeadersDoc => ({ 'Set-Cookie': { description, schema: { type: 'string' } } });

export const SESSION_SET = setCookie(`\`session=<opaque>; HttpOnly; Secure; SameSite=Strict; Path=/; Max-Age=${SESSION_TTL_SECONDS}\`.`);

export const SESSION_CLEARED = setCookie('`session=; HttpOnly; Secure; SameSite=Strict; Path=/; Max-Age=0`.');
