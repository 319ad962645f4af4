import * as z from 'zod';
import { withExample } from '#platform/http/common-schemas.js';

export const LoginBody = withExample(
  z
    .strictObject({
      email: z.string().min(1).max(320),
      password: z.string().min(1).max(1024),
    })
    .meta({ id: 'LoginRequest' }),
  { email: 'ada@example.com', password: 'correct horse battery staple' },
);
