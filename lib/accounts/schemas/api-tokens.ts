import * as z from 'zod';
import { LIST_LIMIT_MAX, TOKEN_MAX_MINUTES } from '#platform/config/limits.js';
import { limitParam } from '#platform/http/common-schemas.js';

export const CreateTokenBody = z
  .strictObject({
    name: z.string().min(1).max(200).optional().meta({ description: 'Default `API Token - <timestamp>`.' }),
    duration_minutes: z
      .number()
      .int()
      .optional()
      .meta({ description: `Default 60; zero or less becomes 60; above ${TOKEN_MAX_MINUTES} is clamped to ${TOKEN_MAX_MINUTES}.` }),
  })
  .meta({ id: 'CreateApiTokenRequest' });

export const ListTokensQuery = z.object({
  limit: limitParam(LIST_LIMIT_MAX, LIST_LIMIT_MAX),
  cursor: z.string().min(1).optional(),
});

export const RevokeTokenBody = z.strictObject({ token_id: z.string().min(1).max(200) }).meta({ id: 'RevokeApiTokenRequest' });
