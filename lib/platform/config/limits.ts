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
/**
 * How deep a JSON value a caller sends may nest (objects and arrays inside
 * one another; a scalar is 0, `{}` is 1): run `input` and `metadata`, a
 * workflow request's `payload` and `metadata`, an evaluation case's `input`,
 * a hook event's body, a workflow node's `config`. DynamoDB stores a value
 * 31 levels deep under an attribute (32 with the attribute itself), and
 * the service wraps what it keeps: a workflow version holds a config under
 * `definition.nodes[i]` (3 levels), an account event holds a run or
 * request view under `data` (1), and the engine wraps a value once more
 * for each node it passes (a node's input holds its parents' outputs by
 * id, a `workflow` node's output holds its child's by id: 1 or 2 a hop).
 * 20 leaves 8 levels over the deepest of those.
 */
export const JSON_MAX_DEPTH = 20;
/**
 * How deep a request body may nest at all, checked on its text before it
 * is parsed: past this a body is refused whatever its fields are, before
 * anything that recurses over it (a serializer overflows its stack a few
 * thousand levels down). No body the service accepts comes near it (the
 * deepest, a workflow version's, holds a node config 4 levels down).
 */
export const JSON_BODY_MAX_DEPTH = 64;
