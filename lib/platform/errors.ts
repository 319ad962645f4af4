/**
 * The one typed error family of the service. Domain code throws these; the
 * problem middleware (lib/http/problem-middleware.ts) is the only place that
 * turns them into HTTP answers. Anything that is not an ApiError becomes an
 * opaque 500 `internal_error`.
 */

export type ErrorLocation = 'body' | 'path' | 'query' | 'header';

export interface FieldError {
  /** JSON Pointer for body fields, the plain name for a parameter or header. */
  name: string;
  location: ErrorLocation;
  reason: string;
  code: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly options: {
      errors?: FieldError[];
      headers?: Record<string, string>;
      /** Extra members of the problem document (RFC 9457 extension members). */
      extensions?: Record<string, unknown>;
    } = {},
  ) {
    super(detail);
    this.name = new.target.name;
  }
}

export class InvalidJsonError extends ApiError {
  constructor(detail = 'The request body is not valid JSON.') {
    super(400, 'invalid_json', detail);
  }
}

export class InvalidBodyError extends ApiError {
  constructor(detail = 'The request body must be a JSON object.') {
    super(400, 'invalid_body', detail);
  }
}

export class UnknownFieldError extends ApiError {
  constructor(errors: FieldError[]) {
    const names = errors.map((e) => e.name).join(', ');
    super(400, 'unknown_field', `The request has fields this endpoint does not accept: ${names}.`, { errors });
  }
}

export class InvalidParameterError extends ApiError {
  constructor(errors: FieldError[]) {
    const detail = errors.map((e) => `${e.name}: ${e.reason}`).join('; ');
    super(400, 'invalid_parameter', `Invalid query parameter. ${detail}.`, { errors });
  }
}

export class ValidationError extends ApiError {
  constructor(errors: FieldError[], status = 422) {
    const detail = errors.map((e) => `${e.name}: ${e.reason}`).join('; ');
    super(status, 'validation_failed', `The request is not valid. ${detail}.`, { errors });
  }
}

export class CursorInvalidError extends ApiError {
  constructor() {
    super(400, 'cursor_invalid', 'The cursor is malformed or was not issued by this service.');
  }
}

export class CursorFilterMismatchError extends ApiError {
  constructor() {
    super(400, 'cursor_filter_mismatch', 'The cursor was issued for a different endpoint or filter set; restart without it.');
  }
}

export class IdempotencyKeyRequiredError extends ApiError {
  constructor() {
    super(400, 'idempotency_key_required', 'This write requires an Idempotency-Key header.');
  }
}

export class IdempotencyKeyInvalidError extends ApiError {
  constructor() {
    super(400, 'idempotency_key_invalid', 'The Idempotency-Key header must be 1 to 255 visible ASCII characters.');
  }
}

export class IdempotencyKeyConflictError extends ApiError {
  constructor() {
    super(409, 'idempotency_key_conflict', 'This Idempotency-Key was already used with a different request body.');
  }
}

export class IdempotencyKeyInFlightError extends ApiError {
  constructor() {
    super(409, 'idempotency_key_in_flight', 'A request with this Idempotency-Key is being processed; retry shortly.', {
      headers: { 'Retry-After': '1' },
    });
  }
}

export class UnauthorizedError extends ApiError {
  constructor(detail = 'A valid bearer token is required.') {
    super(401, 'unauthorized', detail);
  }
}

export class ForbiddenError extends ApiError {
  constructor(detail: string) {
    super(403, 'forbidden', detail);
  }
}

export class AccountSuspendedError extends ForbiddenError {
  constructor() {
    super('The account is suspended.');
  }
}

export class NotFoundError extends ApiError {
  constructor(detail = 'The resource does not exist.') {
    super(404, 'not_found', detail);
  }
}

export class MethodNotAllowedError extends ApiError {
  constructor(allowed: string[]) {
    super(405, 'method_not_allowed', `This path answers ${allowed.join(', ')}.`, {
      headers: { Allow: allowed.join(', ') },
    });
  }
}

export class ConflictError extends ApiError {
  constructor(code: string, detail: string) {
    super(409, code, detail);
  }
}

export class InternalError extends ApiError {
  constructor() {
    super(500, 'internal_error', 'The service failed to process the request; quote the trace_id when reporting it.');
  }
}
