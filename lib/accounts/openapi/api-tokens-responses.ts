import * as z from 'zod';

export const CreatedToken = z
  .object({
    id: z.string().meta({ description: 'The public id, used to revoke.' }),
    token: z.string().meta({ description: 'The bearer token; returned only on creation.' }),
    name: z.string(),
    expires_at: z.string().datetime(),
    expires_in: z.number().int().meta({ description: 'Seconds.' }),
    scope: z.literal('api'),
    endpoint: z.string().meta({ description: 'Informational, legacy; the path it names is not served (404).' }),
    rate_limit: z.string().meta({ description: 'Informational text, not a setting.' }),
    max_concurrent_requests: z.number().int().meta({ description: 'Informational, not a setting.' }),
    usage_note: z.string(),
    created_at: z.string().datetime(),
  })
  .meta({ id: 'CreatedApiToken' });

export const ListedToken = z
  .object({
    id: z.string(),
    name: z.string(),
    expires_at: z.string().datetime(),
    created_at: z.string().datetime(),
    scope: z.literal('api'),
    status: z.literal('active'),
  })
  .meta({ id: 'ApiToken' });

export const ListTokensResponse = z
  .object({
    tokens: z.array(ListedToken),
    next_cursor: z.string().nullable(),
    has_more: z.boolean(),
  })
  .meta({ id: 'ApiTokenList' });

export { MessageSchema as RevokedMessage } from '#platform/openapi/problem-schemas.js';
