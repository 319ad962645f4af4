import * as z from 'zod';

export const LoginResponse = z.object({ account_id: z.string().uuid(), expires_at: z.string().datetime() }).meta({ id: 'LoginResponse' });
