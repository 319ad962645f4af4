import { retryAfterSeconds } from './retry-after.js';
import type { components } from './schema.js';

type FieldError = components['schemas']['FieldError'];

/**
 * The code of an answer whose body names none: the `{message}` bodies of the v1 token and
 * sign-in calls, or a body that is not JSON (a proxy's page): the code the service's problem
 * documents give that status (400: `invalid_body`, the closest of its several).
 */
const CODE_OF_STATUS: Record<number, string> = {
  400: 'invalid_body',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  406: 'not_acceptable',
  422: 'validation_failed',
  429: 'rate_limited',
  500: 'internal_error',
  502: 'upstream_unavailable',
};

const TITLE_OF_STATUS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  406: 'Not Acceptable',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const stringField = (body: unknown, name: string): string | undefined => (isObject(body) && typeof body[name] === 'string' ? body[name] : undefined);

/**
 * A non-2xx answer of the service. `body` is what it said: an RFC 9457 problem document
 * (`application/problem+json`: `type`, `title`, `status`, `detail`, `code`, `trace_id`,
 * `errors` on validation failures), the `{message}` body of the v1 token and sign-in calls,
 * or the text of anything else. Branch on `code`: the problem document's, or, for a body
 * without one, the service's code for that status (`unauthorized`, `forbidden`, `not_found`, …).
 */
export class ProblemError extends Error {
  override readonly name = 'ProblemError';
  /** The HTTP status. */
  readonly status: number;
  /** Stable machine-readable name (`not_found`, `validation_failed`, `rate_limited`, …). */
  readonly code?: string;
  /** The HTTP status name. */
  readonly title?: string;
  /** A sentence for a person (the problem's `detail`, or the `{message}`); not to be parsed. */
  readonly detail?: string;
  /** On validation failures: one entry per rejected field. */
  readonly errors?: FieldError[];
  /** The parsed body: the problem document, `{message}`, or the text of a body that is not JSON. */
  readonly body: unknown;
  /** From `Retry-After` (seconds or an HTTP date), or the body's `retry_after_seconds`. */
  readonly retryAfterSeconds?: number;
  /** The request's id: the `X-Request-Id` answered, or the problem's `trace_id`. Quote it when reporting a fault. */
  readonly requestId?: string;

  constructor(init: {
    status: number;
    body: unknown;
    code?: string | undefined;
    title?: string | undefined;
    detail?: string | undefined;
    errors?: FieldError[] | undefined;
    retryAfterSeconds?: number | undefined;
    requestId?: string | undefined;
  }) {
    const { status, code, title, detail } = init;
    super(`${status}${code ? ` ${code}` : ''}${detail ? `: ${detail}` : title ? `: ${title}` : ''}`);
    this.status = status;
    this.body = init.body;
    if (code !== undefined) this.code = code;
    if (title !== undefined) this.title = title;
    if (detail !== undefined) this.detail = detail;
    if (init.errors !== undefined) this.errors = init.errors;
    if (init.retryAfterSeconds !== undefined) this.retryAfterSeconds = init.retryAfterSeconds;
    if (init.requestId !== undefined) this.requestId = init.requestId;
  }

  /** The error of an answer whose body was already read (`read`: the parsed JSON, or the text, empty or undefined for none). */
  static of(response: Response, read: unknown): ProblemError {
    const body = read === '' ? undefined : read;
    const retryAfter = retryAfterSeconds(response.headers.get('Retry-After'));
    const bodyRetryAfter = isObject(body) && typeof body.retry_after_seconds === 'number' ? body.retry_after_seconds : undefined;
    const text = typeof body === 'string' && body.trim() !== '' ? body.trim().slice(0, 500) : undefined;
    return new ProblemError({
      status: response.status,
      body,
      code: stringField(body, 'code') ?? CODE_OF_STATUS[response.status],
      title: stringField(body, 'title') ?? (response.statusText || TITLE_OF_STATUS[response.status]),
      detail: stringField(body, 'detail') ?? stringField(body, 'message') ?? text,
      errors: isObject(body) && Array.isArray(body.errors) ? (body.errors as FieldError[]) : undefined,
      retryAfterSeconds: retryAfter ?? bodyRetryAfter,
      requestId: response.headers.get('X-Request-Id') ?? stringField(body, 'trace_id'),
    });
  }

  /** The error of an answer whose body has not been read yet. */
  static async from(response: Response): Promise<ProblemError> {
    let text = '';
    try {
      text = await response.text();
    } catch {
      // The body broke off: the status and headers still say what happened.
    }
    let body: unknown = text === '' ? undefined : text;
    try {
      if (text !== '') body = JSON.parse(text);
    } catch {
      // Not JSON: kept as text.
    }
    return ProblemError.of(response, body);
  }
}
