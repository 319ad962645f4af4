import * as z from 'zod';
import { withExample } from '#platform/http/common-schemas.js';
import { v1Page } from '#platform/openapi/pagination.js';
import { MessageSchema } from '#platform/openapi/problem-schemas.js';

export const CreatedToken = withExample(
  z
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
    .meta({ id: 'CreatedApiToken' }),
  {
    id: 'tok_0mwvm4k9aZ3xQ7rT2uV8wY1bC',
    token: 'wfs_4Dq1b2xLTvKpN3cG5hR7JwAbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfG',
    name: 'CI deploys',
    expires_at: '2026-01-31T10:30:00.000Z',
    expires_in: 3600,
    scope: 'api',
    endpoint: 'https://api.example.com/v1/chat/completions',
    rate_limit: '10 requests per second',
    max_concurrent_requests: 10,
    usage_note: 'Send this token as "Authorization: Bearer <token>" on /v1 and /v2 calls. It is shown only once; the service keeps only its hash.',
    created_at: '2026-01-31T09:30:00.000Z',
  },
);

export const ListedToken = withExample(
  z
    .object({
      id: z.string(),
      name: z.string(),
      expires_at: z.string().datetime(),
      created_at: z.string().datetime(),
      scope: z.literal('api'),
      status: z.literal('active'),
    })
    .meta({ id: 'ApiToken' }),
  {
    id: 'tok_0mwvm4k9aZ3xQ7rT2uV8wY1bC',
    name: 'CI deploys',
    expires_at: '2026-01-31T10:30:00.000Z',
    created_at: '2026-01-31T09:30:00.000Z',
    scope: 'api',
    status: 'active',
  },
);

export const ListTokensResponse = v1Page('tokens', ListedToken, { id: 'ApiTokenList', itemsDescription: 'Live tokens, newest first.' });

export const RevokedMessage = MessageSchema;
