import * as z from 'zod';

export const LoginBody = z
  .strictObject({
    email: z.string().min(1).max(320),
    password: z.string().min(1).max(1024),
  })
  .meta({ id: 'LoginRequest' });
