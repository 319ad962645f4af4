import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import middy from '@middy/core';
import type { Context, StreamifyHandler } from 'aws-lambda';
import { serviceEnv } from '../config/env.js';
import { DomainError } from '../errors.js';
import { observeInvocation } from '../observability/invocation.js';
import { appendLogKeys, logger } from '../observability/logger.js';
import type { AuthScheme, BodyOf, EndpointContract, QueryOf } from './contract.js';
import { checkIdempotencyKey, type RunIdempotent } from './idempotency-key.js';
import { parseBody, parseQuery } from './parse.js';
import { type ErrorFormat, errorResponse } from './problem.js';
import { header } from './responses.js';
import { matchRoute, type RoutePattern, unservedRouteError } from './routing.js';
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

export type HttpMiddleware = middy.MiddlewareObj<HttpEvent, HttpResult, Error, ApiContext>;

/** An auth step, tagged with the scheme it checks, so a handler cannot pass another than its contract's. */
export type AuthMiddleware<S extends AuthScheme = AuthScheme> = HttpMiddleware & { readonly scheme: S };

/** What a handler passes beside its contract: the parts that take dependencies (fakes in unit tests). */
export type HandlerOptions<C extends EndpointContract> = {
  /**
   * `bearerAuth(tokens)` (lib/accounts/bearer-auth.ts) when the contract's
   * auth is bearer; otherwise `none` (a session contract's handler reads the
   * cookie itself). Passed in, so routes without auth do not bundle the token store.
   */
  auth: C extends { auth: 'bearer' } ? AuthMiddleware<'bearer'> : 'none';
} & (C extends { idempotency: 'required' | 'optional' }
  ? /** `runIdempotent` (lib/platform/http/idempotency.ts); passed in, so other routes do not bundle Powertools idempotency. */
    { idempotency: RunIdempotent }
  : { idempotency?: undefined });

const REQUEST_ID = /^[\x21-\x7e]{1,200}$/;

/** Echoes a sane client `X-Request-Id`; otherwise the request gets a fresh one. */
function requestIdOf(event: HttpEvent, fallback: () => string): string {
  const sent = header(event.headers, 'x-request-id');
  return sent && REQUEST_ID.test(sent) ? sent : fallback();
}

/** The request id the answer carries (`X-Request-Id`, a problem's `trace_id`), on every log line of the request too. */
function startApiState(event: HttpEvent): ApiContext['api'] {
  const requestId = requestIdOf(event, () => crypto.randomUUID());
  appendLogKeys({ request_id: requestId });
  return { requestId };
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
      request.context.api = startApiState(request.event);
    },
    after: finish,
    onError: async (request) => {
      request.context.api ??= startApiState(request.event);
      // Past its rate limit, a request is answered 429 whatever else is wrong with it (a GET whose query
      // fails validation never reached the point where its check is awaited).
      const refusal = await request.context.api.admission?.then(
        () => undefined,
        (error: unknown) => error,
      );
      if (refusal) request.error = refusal as Error;
      if (!(request.error instanceof DomainError)) {
        logger().error('unhandled error', { error: request.error as Error, trace_id: request.context.api.requestId });
      }
      request.response = errorResponse(request.error, request.context.api.requestId, serviceEnv, format);
      finish(request);
    },
  };
};

/** After authentication: the account's id on every log line of the request from here on. */
const accountLogKey: HttpMiddleware = {
  before: (request) => {
    const accountId = request.context.api.principal?.accountId;
    if (accountId) appendLogKeys({ account_id: accountId });
  },
};

/**
 * Whether a route waits for the rate limit check before it runs: every
 * write (nothing is changed for a request past the limit) and every stream
 * (nothing is sent). A GET runs beside its check instead (`answerAdmitted`).
 */
const admitsFirst = (contract: EndpointContract): boolean => contract.method !== 'GET' || contract.streaming === true;

/** After authentication: a write or a stream waits here for the account's rate limit check (ApiState.admission). */
const admissionGate = (contract: EndpointContract): HttpMiddleware => ({
  before: async (request) => {
    if (admitsFirst(contract)) await request.context.api.admission;
  },
});

/**
 * A GET's answer, given once its rate limit check has resolved: the check's
 * write and the handler's reads run at the same time, so the check adds no
 * round trip. Refused, the request is answered 429 and the handler's answer
 * (a read: nothing changed) is dropped.
 */
async function answerAdmitted<R>(admission: Promise<void> | undefined, answer: Promise<R>): Promise<R> {
  if (!admission) return answer;
  const [admitted, answered] = await Promise.allSettled([admission, answer]);
  if (admitted.status === 'rejected') throw admitted.reason;
  if (answered.status === 'rejected') throw answered.reason;
  return answered.value;
}

const validateInput = (contract: EndpointContract): HttpMiddleware => ({
  before: (request) => {
    const key = header(request.event.headers, 'idempotency-key');
    if (contract.idempotency && (key !== undefined || contract.idempotency === 'required')) checkIdempotencyKey(key);
    if (contract.query) request.context.api.query = parseQuery(request.event, contract.query);
    if (contract.body) {
      const { value, raw } = parseBody(request.event, contract.body);
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

/** The auth step the handler passed, refused unless it is the one its contract names. */
function authStep(contract: EndpointContract, auth: AuthMiddleware | 'none'): HttpMiddleware | undefined {
  const wanted = contract.auth === 'bearer' ? 'bearer' : 'none';
  const passed = auth === 'none' ? 'none' : auth.scheme;
  if (passed !== wanted) {
    const name = (scheme: string | undefined) => (scheme === 'none' ? "'none'" : `a ${scheme ?? 'untagged'} auth middleware`);
    throw new Error(`${contract.id}: its contract's auth is ${contract.auth}, so its handler passes ${name(wanted)}, not ${name(passed)}.`);
  }
  return auth === 'none' ? undefined : auth;
}

/**
 * The stack every route runs: request id → (path) → auth → (rate limit, for
 * writes and streams) → input validation → `core`. Its caller runs it in
 * `observeInvocation`, which scopes the log keys the stack adds to the
 * invocation and publishes its metrics at the end.
 */
function stack<R>(
  contract: EndpointContract,
  auth: AuthMiddleware | 'none',
  core: (event: HttpEvent, context: ApiContext) => Promise<R>,
  plugin?: middy.PluginObject,
  path?: HttpMiddleware,
) {
  const step = authStep(contract, auth);
  const handler = middy<HttpEvent, R, Error, ApiContext>(core, plugin).use(requestContext(contract.errors ?? 'problem'));
  if (path) handler.use(path);
  if (step) handler.use(step).use(accountLogKey).use(admissionGate(contract));
  return handler.use(validateInput(contract));
}

/**
 * Builds the Lambda handler of a contract's route: request id → auth →
 * the account's rate limit (awaited here by a write; a GET's `fn` runs
 * beside it) → input validation (the contract's query and body) →
 * (idempotency) → `fn`. `fn` only shapes the answer.
 */
export function httpHandler<const C extends EndpointContract>(
  contract: C,
  options: HandlerOptions<C>,
  fn: (request: ApiRequest<BodyOf<C>, QueryOf<C>>) => Promise<HttpResult>,
) {
  const { auth, idempotency } = options as { auth: AuthMiddleware | 'none'; idempotency?: RunIdempotent };
  if (contract.streaming) throw new Error(`${contract.id} streams: streamingHttpHandler builds its handler.`);
  if (!contract.idempotency !== !idempotency) {
    throw new Error(`${contract.id}: its handler passes an idempotency implementation exactly when its contract asks for idempotency.`);
  }
  const core = async (event: HttpEvent, context: ApiContext): Promise<HttpResult> => {
    const request = apiRequest<BodyOf<C>, QueryOf<C>>(event, context);
    const key = header(event.headers, 'idempotency-key');
    if (!idempotency || key === undefined) return answerAdmitted(context.api.admission, fn(request));
    // Scoped by the path as asked, not its template: one key used to fork two runs is two requests.
    const route = `${event.requestContext.http.method} ${event.rawPath}`;
    return idempotency({ accountId: request.principal?.accountId ?? 'anonymous', route, key, body: context.api.rawBody ?? null }, context, () => fn(request));
  };
  const handler = stack(contract, auth, core);
  return (event: HttpEvent, context: Context): Promise<HttpResult> => observeInvocation(context, () => handler(event, context as ApiContext));
}

export interface StreamingHandlerOptions<C extends EndpointContract> extends Pick<HandlerOptions<C>, 'auth'> {
  /**
   * Every route the service serves. A function URL sends every path to the
   * one function with no route matched, so the path is matched against the
   * contract's here, before auth, as routing does; any other path answers
   * what API Gateway would: 405 where `served` has the path, else 404.
   */
  served: readonly RoutePattern[];
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
export function streamingHttpHandler<const C extends EndpointContract>(
  contract: C,
  options: StreamingHandlerOptions<C>,
  fn: (request: ApiRequest<undefined, QueryOf<C>>) => Promise<HttpResult | StreamingResult>,
) {
  const auth = options.auth as AuthMiddleware | 'none';
  if (!contract.streaming || contract.body || contract.idempotency) {
    throw new Error(`${contract.id}: a streaming handler serves a streaming contract, without a body or idempotency.`);
  }
  const path: HttpMiddleware = {
    before: (request) => {
      const method = request.event.requestContext?.http?.method ?? 'GET';
      const rawPath = request.event.rawPath ?? '/';
      const matched = matchRoute(method, rawPath, [contract]);
      if (!matched) throw unservedRouteError(method, rawPath, options.served);
      request.event.pathParameters = matched.params;
    },
  };
  const runtime = lambdaStreaming();
  if (!runtime) {
    const handler = stack(contract, auth, (event, context) => fn(apiRequest<undefined, QueryOf<C>>(event, context)), undefined, path);
    return (event: HttpEvent, context: Context): Promise<HttpResult> =>
      observeInvocation(context, async () => buffered(await handler(event, context as ApiContext)));
  }
  /** The body each invocation streams, by its context: waited for when the client leaves. */
  const bodies = new WeakMap<object, Readable>();
  const core = async (event: HttpEvent, context: ApiContext) => {
    const result = await fn(apiRequest<undefined, QueryOf<C>>(event, context));
    if (typeof result.body !== 'string') bodies.set(context, result.body);
    return result;
  };
  const streamed = stack(contract, auth, core, { streamifyResponse: true }, path) as unknown as StreamifyHandler<HttpEvent, void>;
  return runtime.streamifyResponse<HttpEvent>((event, responseStream, context) =>
    observeInvocation(context, async () => {
      try {
        await streamed(event, responseStream, context);
      } catch (error) {
        if (!clientGone(error)) throw error;
        // The invocation ends when the body has wound down (its producer's `finally` blocks ran), not before.
        const body = bodies.get(context);
        if (body) await finished(body).catch(() => undefined);
      }
    }),
  );
}
