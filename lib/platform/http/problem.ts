import type { ServiceEnv } from '../config/env.js';
import { DomainError, type ErrorKind, InternalError } from '../errors.js';
import type { HttpResult } from './types.js';

export type ErrorFormat = 'problem' | 'message';

// node:http's STATUS_CODES would load the whole HTTP stack (about 4 ms of a
// cold start) for a few strings. RFC 9110's names for the statuses the service answers.
export const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** The one mapping from a kind of refusal to an HTTP status. */
export const STATUS_OF: Record<ErrorKind, number> = {
  malformed: 400,
  unauthenticated: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  conflict: 409,
  gone: 410,
  too_large: 413,
  invalid: 422,
  too_many_requests: 429,
  internal: 500,
  upstream_failed: 502,
  unavailable: 503,
};

/**
 * The one place an error becomes an HTTP answer: an RFC 9457 problem
 * document, or `{message}` for the token calls (specification, API tokens).
 * Anything that is not a DomainError is answered as an opaque 500.
 */
export function errorResponse(error: unknown, requestId: string, env: ServiceEnv, format: ErrorFormat): HttpResult {
  const domainError = error instanceof DomainError ? error : new InternalError();
  const status = STATUS_OF[domainError.kind];
  const { retryAfterSeconds, allowedMethods, errors, extensions } = domainError.options;
  const headers: Record<string, string> = {};
  if (retryAfterSeconds !== undefined) headers['Retry-After'] = String(retryAfterSeconds);
  if (allowedMethods) headers.Allow = allowedMethods.join(', ');
  if (domainError.kind === 'unauthenticated') headers['WWW-Authenticate'] = `Bearer realm="${env.realm}"`;
  if (format === 'message') {
    headers['Content-Type'] = 'application/json';
    return { statusCode: status, headers, body: JSON.stringify({ message: domainError.detail }) };
  }
  headers['Content-Type'] = 'application/problem+json';
  const problem = {
    type: `${env.problemBase}/${domainError.code}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail: domainError.detail,
    code: domainError.code,
    trace_id: requestId,
    ...(errors ? { errors } : {}),
    ...extensions,
  };
  return { statusCode: status, headers, body: JSON.stringify(problem) };
}
