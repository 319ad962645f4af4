import { z } from './common.js';

export const LoginBody = z
  .strictObject({
    email: z.string().min(1).max(320),
    password: z.string().min(1).max(1024),
  })
  .openapi('LoginRequest');

export const LoginResponse = z
  .object({ account_id: z.string().uuid(), expires_at: z.string().datetime() })
  .openapi('LoginResponse');
