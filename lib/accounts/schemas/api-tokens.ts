import * as z from 'zod';
import { LIST_LIMIT_MAX, TOKEN_MAX_MINUTES } from '#platform/config/limits.js';
import { limitParam, withExample } from '#platform/http/common-schemas.js';

export const CreateTokenBody = withExample(
  z
    .strictObject({
      name: z.string().min(1).max(200).optional().meta({ description: 'Default `API Token - <timestamp>`.' }),
      duration_minutes: z
        .number()
        .int()
        .optional()
        .meta({ description: `Default 60; zero or less becomes 60; above ${TOKEN_MAX_MINUTES} is clamped to ${TOKEN_MAX_MINUTES}.` }),
    })
    .meta({ id: 'CreateApiTokenRequest' }),
  { name: 'CI deploys', duration_minutes: 60 },
);

export const ListTokensQuery = z.object({
  limit: limitParam(LIST_LIMIT_MAX, LIST_LIMIT_MAX),
  cursor: z.string().min(1).optional(),
});

export const RevokeTokenBody = withExample(z.strictObject({ token_id: z.string().min(1).max(200) }).meta({ id: 'RevokeApiTokenRequest' }), {
  token_id: 'tok_0mwvm4k9aZ3xQ7rT2uV8wY1bC',
});
