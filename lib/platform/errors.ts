/**
 * The one typed error family of the service: domain errors with a stable
 * `code` (what clients branch on), a `kind` (what sort of refusal it is) and
 * an optional `cause`. Repositories, use cases and the engine throw these
 * and never name an HTTP status; the HTTP edge (lib/platform/http/problem.ts)
 * alone maps a kind to a status and a problem document. Anything that is
 * not a DomainError becomes an opaque 500 `internal_error`.
 */

export type ErrorLocation = 'body' | 'path' | 'query' | 'header';

export interface FieldError {
  /** JSON Pointer for body fields, the plain name for a parameter or header. */
  name: string;
  location: ErrorLocation;
  reason: string;
  code: string;
}

/** What sort of refusal an error is; the HTTP edge maps each to one status. */
export type ErrorKind =
  | 'malformed'
  | 'unauthenticated'
  /** The plan does not allow it (a limit money would lift). */
  | 'payment_required'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  /** No representation the request's `Accept` takes. */
  | 'not_acceptable'
  | 'conflict'
  /** Existed, but is past its retention: asking again will not bring it back. */
  | 'gone'
  /** The request body is larger than the endpoint takes. */
  | 'too_large'
  | 'invalid'
  /** Too much at once (a rate or a ceiling): fixed by waiting, `retryAfterSeconds` says how long. */
  | 'too_many_requests'
  /** A server of the caller's (an MCP server) is unreachable or failing. */
  | 'upstream_failed'
  | 'unavailable'
  | 'internal';

export interface DomainErrorOptions {
  errors?: FieldError[];
  /** Worth retrying after this many seconds (in flight, not ready yet). */
  retryAfterSeconds?: number;
  /** The methods a path does answer (method_not_allowed). */
  allowedMethods?: string[];
  /** Extra members of the answer (RFC 9457 extension members). */
  extensions?: Record<string, unknown>;
  cause?: unknown;
}

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    readonly detail: string,
    readonly options: DomainErrorOptions = {},
  ) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }
}

export class InvalidJsonError extends DomainError {
  constructor(detail = 'The request body is not valid JSON.') {
    super('malformed', 'invalid_json', detail);
  }
}

export class InvalidBodyError extends DomainError {
  constructor(detail = 'The request body must be a JSON object.') {
    super('malformed', 'invalid_body', detail);
  }
}

export class UnknownFieldError extends DomainError {
  constructor(errors: FieldError[]) {
    const names = errors.map((e) => e.name).join(', ');
    super('malformed', 'unknown_field', `The request has fields this endpoint does not accept: ${names}.`, { errors });
  }
}

export class InvalidParameterError extends DomainError {
  constructor(errors: FieldError[]) {
    const detail = errors.map((e) => `${e.name}: ${e.reason}`).join('; ');
    super('malformed', 'invalid_parameter', `Invalid query parameter. ${detail}.`, { errors });
  }
}

export class ValidationError extends DomainError {
  constructor(errors: FieldError[]) {
    const detail = errors.map((e) => `${e.name}: ${e.reason}`).join('; ');
    super('invalid', 'validation_failed', `The request is not valid. ${detail}.`, { errors });
  }
}

export class CursorInvalidError extends DomainError {
  constructor() {
    super('malformed', 'cursor_invalid', 'The cursor is malformed or was not issued by this service.');
  }
}

export class CursorFilterMismatchError extends DomainError {
  constructor() {
    super('malformed', 'cursor_filter_mismatch', 'The cursor was issued for a different endpoint or filter set; restart without it.');
  }
}

export class IdempotencyKeyRequiredError extends DomainError {
  constructor() {
    super('malformed', 'idempotency_key_required', 'This write requires an Idempotency-Key header.');
  }
}

export class IdempotencyKeyInvalidError extends DomainError {
  constructor() {
    super('malformed', 'idempotency_key_invalid', 'The Idempotency-Key header must be 1 to 255 visible ASCII characters.');
  }
}

export class IdempotencyKeyConflictError extends DomainError {
  constructor() {
    super('conflict', 'idempotency_key_conflict', 'This Idempotency-Key was already used with a different request body.');
  }
}

export class IdempotencyKeyInFlightError extends DomainError {
  constructor() {
    super('conflict', 'idempotency_key_in_flight', 'A request with this Idempotency-Key is being processed; retry shortly.', { retryAfterSeconds: 1 });
  }
}

export class UnauthorizedError extends DomainError {
  constructor(detail = 'A valid bearer token is required.') {
    super('unauthenticated', 'unauthorized', detail);
  }
}

export class ForbiddenError extends DomainError {
  constructor(detail: string) {
    super('forbidden', 'forbidden', detail);
  }
}

export class AccountSuspendedError extends ForbiddenError {
  constructor() {
    super('The account is suspended.');
  }
}

export class NotFoundError extends DomainError {
  constructor(detail = 'The resource does not exist.') {
    super('not_found', 'not_found', detail);
  }
}

export class MethodNotAllowedError extends DomainError {
  constructor(allowed: string[]) {
    super('method_not_allowed', 'method_not_allowed', `This path answers ${allowed.join(', ')}.`, { allowedMethods: allowed });
  }
}

export class NotAcceptableError extends DomainError {
  constructor(offered: readonly string[]) {
    super('not_acceptable', 'not_acceptable', `This resource is served as ${offered.join(' or ')}; the Accept header takes none of them.`);
  }
}

export class ConflictError extends DomainError {
  constructor(code: string, detail: string) {
    super('conflict', code, detail);
  }
}

/**
 * Past the account's request rate or its ceiling of work in progress
 * (decisions.md, Rate limits): answered before anything is done, with the
 * wait in whole seconds (at least 1).
 */
export class RateLimitedError extends DomainError {
  constructor(detail: string, retryAfterSeconds: number) {
    super('too_many_requests', 'rate_limited', detail, { retryAfterSeconds: Math.max(1, Math.ceil(retryAfterSeconds)) });
  }
}

export class InternalError extends DomainError {
  constructor() {
    super('internal', 'internal_error', 'The service failed to process the request; quote the trace_id when reporting it.');
  }
}

export class UnavailableError extends DomainError {
  constructor(detail: string, retryAfterSeconds = 1) {
    super('unavailable', 'unavailable', detail, { retryAfterSeconds });
  }
}
