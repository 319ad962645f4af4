/** Fixed limits of the specification (Limits) and decisions.md. */
export const TOKEN_DEFAULT_MINUTES = 60;
export const TOKEN_MAX_MINUTES = 525_600;
export const SESSION_TTL_SECONDS = 12 * 60 * 60;
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
export const LIST_LIMIT_MAX = 100;
export const LIST_LIMIT_DEFAULT = 20;
/** Informational values returned on token creation; not settings. */
export const TOKEN_INFO = {
  rateLimit: '10 requests per second',
  maxConcurrentRequests: 10,
} as const;
/**
 * Largest stored workflow definition (JSON bytes). A version is one DynamoDB
 * item (400 KB at most), so this leaves room for its other attributes.
 */
export const DEFINITION_MAX_BYTES = 300_000;
