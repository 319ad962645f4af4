import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import middy from '@middy/core';
import type { Context, StreamifyHandler } from 'aws-lambda';
import type { z } from 'zod';
import { serviceEnv } from '../config/env.js';
import { DomainError } from '../errors.js';
import { logger } from '../observability/logger.js';
import { checkIdempotencyKey, type IdempotentCall } from './idempotency-key.js';
import { parseBody, parseQuery } from './parse.js';
import { type ErrorFormat, errorResponse } from './problem.js';
import { header } from './responses.js';
import { buffered, clientGone, lambdaStreaming, type StreamingResult } from './streaming.js';
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
function requestIdOf(event: HttpEvent, fallback: () => string): string {
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
      if (!(request.error instanceof DomainError)) {
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

const apiRequest = <B, Q>(event: HttpEvent, context: ApiContext): ApiRequest<B, Q> => ({
  event,
  context,
  requestId: context.api.requestId,
  principal: context.api.principal as Principal,
  body: context.api.body as B,
  query: context.api.query as Q,
  params: (event.pathParameters ?? {}) as Record<string, string>,
});

/** The stack every route runs: request id → (path) → auth → input validation → `core`. */
function stack<B, Q, R>(
  options: RouteOptions<B, Q>,
  core: (event: HttpEvent, context: ApiContext) => Promise<R>,
  plugin?: middy.PluginObject,
  path?: HttpMiddleware,
) {
  const handler = middy<HttpEvent, R, Error, ApiContext>(core, plugin).use(requestContext(options.errors ?? 'problem'));
  if (path) handler.use(path);
  if (options.auth !== 'none') handler.use(options.auth);
  return handler.use(validateInput(options));
}

/**
 * Builds a Lambda handler for one HTTP route: request id → auth → input
 * validation → (idempotency) → `fn`. `fn` only shapes the answer.
 */
export function httpHandler<B = undefined, Q = undefined>(options: RouteOptions<B, Q>, fn: (request: ApiRequest<B, Q>) => Promise<HttpResult>) {
  const core = async (event: HttpEvent, context: ApiContext): Promise<HttpResult> => {
    const request = apiRequest<B, Q>(event, context);
    const key = header(event.headers, 'idempotency-key');
    if (!options.idempotency || key === undefined) return fn(request);
    return options.idempotency(
      { accountId: request.principal?.accountId ?? 'anonymous', route: event.routeKey, key, body: context.api.rawBody ?? null },
      context,
      () => fn(request),
    );
  };
  return stack(options, core);
}

export interface StreamingRouteOptions<Q> extends Pick<RouteOptions<undefined, Q>, 'auth' | 'errors' | 'query'> {
  /**
   * The path parameters, from the path: a function URL sends every path to
   * the one function with no route matched. Throws (404, 405) for a path
   * the route does not serve; runs before auth, as routing does.
   */
  pathParameters?: (event: HttpEvent) => Record<string, string>;
}

/**
 * Builds the handler of a response-streaming route (a function URL with
 * `InvokeMode: RESPONSE_STREAM`) on the same stack as `httpHandler`. `fn`
 * answers an `HttpResult`, or a `StreamingResult` whose body middy pipes to
 * the client (`streamifyResponse`); refusals are whole problem documents,
 * answered before any byte of a stream. Where the runtime's `awslambda`
 * global is absent, the handler answers buffered instead: the whole body
 * once it has ended, as a plain `HttpResult`.
 */
export function streamingHttpHandler<Q = undefined>(
  options: StreamingRouteOptions<Q>,
  fn: (request: ApiRequest<undefined, Q>) => Promise<HttpResult | StreamingResult>,
) {
  const { pathParameters } = options;
  const path: HttpMiddleware | undefined = pathParameters && {
    before: (request) => {
      request.event.pathParameters = pathParameters(request.event);
    },
  };
  const runtime = lambdaStreaming();
  if (!runtime) {
    const handler = stack(options, (event, context) => fn(apiRequest<undefined, Q>(event, context)), undefined, path);
    return async (event: HttpEvent, context: Context): Promise<HttpResult> => buffered(await handler(event, context as ApiContext));
  }
  /** The body each invocation streams, by its context: waited for when the client leaves. */
  const bodies = new WeakMap<object, Readable>();
  const core = async (event: HttpEvent, context: ApiContext) => {
    const result = await fn(apiRequest<undefined, Q>(event, context));
    if (typeof result.body !== 'string') bodies.set(context, result.body);
    return result;
  };
  const streamed = stack(options, core, { streamifyResponse: true }, path) as unknown as StreamifyHandler<HttpEvent, void>;
  return runtime.streamifyResponse<HttpEvent>(async (event, responseStream, context) => {
    try {
      await streamed(event, responseStream, context);
    } catch (error) {
      if (!clientGone(error)) throw error;
      // The invocation ends when the body has wound down (its producer's `finally` blocks ran), not before.
      const body = bodies.get(context);
      if (body) await finished(body).catch(() => undefined);
    }
  });
}
