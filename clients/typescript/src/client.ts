import createFetchClient, { type FetchResponse, type MaybeOptionalInit, type Middleware } from 'openapi-fetch';
import type { FilterKeys, HttpMethod, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import { newIdempotencyKey } from './idempotency-key.js';
import { IDEMPOTENCY_KEY_OPERATIONS } from './idempotent-operations.js';
import { ProblemError } from './problem.js';
import { type Fetch, retryingFetch, type Token } from './retry.js';
import type { paths } from './schema.js';
import { follow, type StreamOptions } from './sse.js';
import { type RunEvent, requestEventStream, runEventStream, type WorkflowStreamEvent } from './streams.js';

export interface ClientOptions {
  /** The service's base URL, e.g. `http://127.0.0.1:3000` (no trailing `/v1`). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>`: a token, or a function answering one (asked before every attempt). */
  token?: Token | undefined;
  /** Sends the requests; by default the global `fetch`. */
  fetch?: Fetch | undefined;
  /** Further attempts after a network failure, a 5xx or a 429, when the request may be repeated. Default 2. */
  retries?: number | undefined;
  /** Passed to `fetch`: a browser page that signs in with the session cookie (`POST /v1/auth/login`, `POST /v1/api-tokens`) uses `same-origin` or `include`. */
  credentials?: RequestInit['credentials'] | undefined;
}

/** Bodies are read as JSON: a call's type is its operation's `application/json` content. */
type Media = 'application/json';

/** As openapi-fetch's: `init` is required when the operation has required parameters or a body. */
type InitParam<Init> = RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

// biome-ignore lint/suspicious/noExplicitAny: openapi-fetch's own constraint on an operation
type Answer<Operation, Init> = Operation extends Record<string | number, any> ? FetchResponse<Operation, Init, Media> : never;

/** What a call that succeeded answers: `data`, the operation's 2xx body (no `| undefined`; `undefined` only for a 204), and the `Response`. */
export interface Success<Operation, Init> {
  data: Extract<Answer<Operation, Init>, { data: unknown }>['data'];
  response: Response;
}

/** openapi-fetch's `ClientMethod`, answering only {@link Success}. */
type OkMethod<Paths extends {}, Method extends HttpMethod> = <
  Path extends PathsWithMethod<Paths, Method>,
  Init extends MaybeOptionalInit<Paths[Path] & Record<Method, unknown>, Method>,
>(
  url: Path,
  ...init: InitParam<Init>
) => Promise<Success<FilterKeys<Paths[Path], Method>, Init>>;

/** The typed method of one HTTP method (openapi-fetch's), whose non-2xx answers throw {@link ProblemError}. */
export type ClientMethod<Method extends HttpMethod> = OkMethod<paths, Method>;

export interface Client {
  GET: ClientMethod<'get'>;
  POST: ClientMethod<'post'>;
  PUT: ClientMethod<'put'>;
  PATCH: ClientMethod<'patch'>;
  DELETE: ClientMethod<'delete'>;
  /** A run's events (`GET /v2/runs/{id}/events`) as they happen, from the first (or after `lastEventId`) to its terminal `run.status`. */
  streamRunEvents(runId: string, options?: StreamOptions): AsyncGenerator<RunEvent, void, undefined>;
  /** A workflow request's live stream (`GET /v1/workflow-requests/{id}/listen`): the snapshot, then every change, to its terminal status. */
  streamRequestEvents(requestId: string, options?: StreamOptions): AsyncGenerator<WorkflowStreamEvent, void, undefined>;
}

/** Sends an `Idempotency-Key` with each call of an operation that takes one, unless the caller gave one; the call's retries repeat it. */
const idempotencyKeys: Middleware = {
  onRequest({ request, schemaPath }) {
    if (IDEMPOTENCY_KEY_OPERATIONS.has(`${request.method} ${schemaPath}`) && !request.headers.has('Idempotency-Key')) {
      request.headers.set('Idempotency-Key', newIdempotencyKey());
    }
    return undefined;
  },
};

type LooseRequest = (method: string, url: string, init?: object) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/**
 * The service's typed client: openapi-fetch over the generated `paths`, with the bearer token,
 * `Idempotency-Key`s, retries (specification, Retry rules), problem documents thrown as
 * {@link ProblemError}, and the two event streams as async iterators.
 */
export function createClient(options: ClientOptions): Client {
  const retries = options.retries ?? 2;
  if (!Number.isInteger(retries) || retries < 0) throw new TypeError(`retries must be a whole number from 0, not ${retries}`);
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const { credentials } = options;
  const send = retryingFetch({ fetch: options.fetch, token: options.token, retries });
  const http = createFetchClient<paths, Media>({ baseUrl, fetch: send, ...(credentials ? { credentials } : {}) });
  http.use(idempotencyKeys);
  const request = http.request as unknown as LooseRequest;
  const method = (name: string) => async (url: string, init?: object) => {
    const { data, error, response } = await request(name, url, init);
    if (!response.ok) throw ProblemError.of(response, error);
    return { data, response };
  };
  const streaming = { send, retries, credentials };
  return {
    GET: method('GET') as unknown as ClientMethod<'get'>,
    POST: method('POST') as unknown as ClientMethod<'post'>,
    PUT: method('PUT') as unknown as ClientMethod<'put'>,
    PATCH: method('PATCH') as unknown as ClientMethod<'patch'>,
    DELETE: method('DELETE') as unknown as ClientMethod<'delete'>,
    streamRunEvents: (runId, streamOptions = {}) => follow(runEventStream(baseUrl, runId), { ...streaming, ...streamOptions }),
    streamRequestEvents: (requestId, streamOptions = {}) =>
      follow(requestEventStream(baseUrl, requestId, streamOptions.lastEventId), { ...streaming, ...streamOptions }),
  };
}
