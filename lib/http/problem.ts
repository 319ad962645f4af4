import { STATUS_CODES } from 'node:http';
import { ApiError, InternalError } from '../errors.js';
import type { ServiceEnv } from '../config/env.js';
import type { HttpResult } from './types.js';

export type ErrorFormat = 'problem' | 'message';

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
    title: STATUS_CODES[apiError.status] ?? 'Error',
    status: apiError.status,
    detail: apiError.detail,
    code: apiError.code,
    trace_id: requestId,
    ...(apiError.options.errors ? { errors: apiError.options.errors } : {}),
    ...apiError.options.extensions,
  };
  return { statusCode: apiError.status, headers, body: JSON.stringify(problem) };
}
