import type { HeadersDoc } from '../http/contract.js';

// Response headers as OpenAPI header objects. Plain data, so a contract's
// lazily loaded responses can use them without zod-to-openapi.

/** `Retry-After` in seconds; `when` says on which answers it is sent. */
export const retryAfter = (when: string): HeadersDoc => ({
  'Retry-After': { description: `Seconds to wait before retrying; ${when}.`, schema: { type: 'integer', minimum: 0 } },
});

/** errorResponse (lib/platform/http/problem.ts) sends it with every 401. */
export const WWW_AUTHENTICATE: HeadersDoc = {
  'WWW-Authenticate': { description: 'Sent with every 401: `Bearer realm="<realm>"`.', schema: { type: 'string' } },
};

/** runIdempotent (lib/platform/http/idempotency.ts) sends it on a replay. */
export const IDEMPOTENCY_REPLAYED: HeadersDoc = {
  'Idempotency-Replayed': {
    description: '`true` on a replay: the first answer to this Idempotency-Key, returned again.',
    schema: { type: 'string', const: 'true' },
  },
};
