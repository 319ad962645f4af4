import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { z } from 'zod';
import { serviceEnv } from '../config/env.js';
import { ApiError } from '../errors.js';
import { logger } from '../observability/logger.js';
import { checkIdempotencyKey, type IdempotentCall } from './idempotency-key.js';
import { parseBody, parseQuery } from './parse.js';
import { type ErrorFormat, errorResponse } from './problem.js';
import { header } from './responses.js';
import type { ApiContext, HttpEvent, HttpResult, Principal } from './types.js';

export interface ApiRequest<B, Q> {
  event: HttpEvent;
  context: Context;
  requestId: string;
  principal: Principal;
  body: B;
  query: Q;
  params: Record<string, string>;
}

type RunIdempotent = (call: IdempotentCall, context: Context, execute: () => Promise<HttpResult>) => Promise<HttpResult>;

export type HttpMiddleware = middy.MiddlewareObj<HttpEvent, HttpResult, Error, ApiContext>;

export interface RouteOptions<B, Q> {
  /**
   * `bearerAuth()` (lib/accounts/bearer-auth.ts) for token-authenticated routes;
   * `none` where the handler checks what it needs itself. Passed in, so
   * routes without auth do not bundle the token store.
   */
  auth: HttpMiddleware | 'none';
  /** Token calls answer `{message}`; everything else answers problem documents. */
  errors?: ErrorFormat;
  body?: z.ZodType<B>;
  query?: z.ZodType<Q>;
  /** Passed in by writes that must be idempotent (every v2 POST but cancel). */
  idempotency?: RunIdempotent;
  /** v1 writes honour an Idempotency-Key when one is sent, but do not require it. */
  idempotencyKeyOptional?: boolean;
}

const REQUEST_ID = /^[\x21-\x7e]{1,200}$/;

/** Echoes a sane client `X-Request-Id`; otherwise the request gets a fresh one. */
export function requestIdOf(event: HttpEvent, fallback: () => string): string {
  const sent = header(event.headers, 'x-request-id');
  return sent && REQUEST_ID.test(sent) ? sent : fallback();
}

/**
 * Request id, problem documents and response headers. Registered first, so
 * its onError sees every failure of the stack and the handler.
 */
const requestContext = (format: ErrorFormat): HttpMiddleware => {
  const finish = (request: middy.Request<HttpEvent, HttpResult, Error, ApiContext>) => {
    const response = request.response;
    if (!response) return;
    response.headers = { 'Cache-Control': 'no-store', ...response.headers, 'X-Request-Id': request.context.api.requestId };
  };
  return {
    before: (request) => {
      request.context.api = { requestId: requestIdOf(request.event, () => crypto.randomUUID()) };
    },
    after: finish,
    onError: (request) => {
      request.context.api ??= { requestId: requestIdOf(request.event, () => crypto.randomUUID()) };
      if (!(request.error instanceof ApiError)) {
        logger().error('unhandled error', { error: request.error as Error, trace_id: request.context.api.requestId });
      }
      request.response = errorResponse(request.error, request.context.api.requestId, serviceEnv, format);
      finish(request);
    },
  };
};

const validateInput = <B, Q>(options: RouteOptions<B, Q>): HttpMiddleware => ({
  before: (request) => {
    const key = header(request.event.headers, 'idempotency-key');
    if (options.idempotency && (key !== undefined || !options.idempotencyKeyOptional)) checkIdempotencyKey(key);
    if (options.query) request.context.api.query = parseQuery(request.event, options.query);
    if (options.body) {
      const { value, raw } = parseBody(request.event, options.body);
      request.context.api.body = value;
      request.context.api.rawBody = raw;
    }
  },
});

/**
 * Builds a Lambda handler for one HTTP route: request id → auth → input
 * validation → (idempotency) → `fn`. `fn` only shapes the answer.
 */
export function httpHandler<B = undefined, Q = undefined>(options: RouteOptions<B, Q>, fn: (request: ApiRequest<B, Q>) => Promise<HttpResult>) {
  const core = async (event: HttpEvent, context: ApiContext): Promise<HttpResult> => {
    const api = context.api;
    const request: ApiRequest<B, Q> = {
      event,
      context,
      requestId: api.requestId,
      principal: api.principal as Principal,
      body: api.body as B,
      query: api.query as Q,
      params: (event.pathParameters ?? {}) as Record<string, string>,
    };
    const key = header(event.headers, 'idempotency-key');
    if (!options.idempotency || key === undefined) return fn(request);
    return options.idempotency({ accountId: api.principal?.accountId ?? 'anonymous', route: event.routeKey, key, body: api.rawBody ?? null }, context, () =>
      fn(request),
    );
  };
  const handler = middy<HttpEvent, HttpResult, Error, ApiContext>(core).use(requestContext(options.errors ?? 'problem'));
  if (options.auth !== 'none') handler.use(options.auth);
  return handler.use(validateInput(options));
}
