import type { ServiceEnv } from '../config/env.js';
import { ApiError, InternalError } from '../errors.js';
import type { HttpResult } from './types.js';

export type ErrorFormat = 'problem' | 'message';

// node:http's STATUS_CODES would load the whole HTTP stack (about 4 ms of a
// cold start) for a few strings. RFC 9110's names for the statuses the service answers.
const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/**
 * The one place an error becomes an HTTP answer: an RFC 9457 problem
 * document, or `{message}` for the token calls (specification, API tokens).
 * Anything that is not an ApiError is answered as an opaque 500.
 */
export function errorResponse(error: unknown, requestId: string, env: ServiceEnv, format: ErrorFormat): HttpResult {
  const apiError = error instanceof ApiError ? error : new InternalError();
  const headers: Record<string, string> = { ...apiError.options.headers };
  if (apiError.status === 401) headers['WWW-Authenticate'] = `Bearer realm="${env.realm}"`;
  if (format === 'message') {
    headers['Content-Type'] = 'application/json';
    return { statusCode: apiError.status, headers, body: JSON.stringify({ message: apiError.detail }) };
  }
  headers['Content-Type'] = 'application/problem+json';
  const problem = {
    type: `${env.problemBase}/${apiError.code}`,
    title: TITLES[apiError.status] ?? 'Error',
    status: apiError.status,
    detail: apiError.detail,
    code: apiError.code,
    trace_id: requestId,
    ...(apiError.options.errors ? { errors: apiError.options.errors } : {}),
    ...apiError.options.extensions,
  };
  return { statusCode: apiError.status, headers, body: JSON.stringify(problem) };
}
