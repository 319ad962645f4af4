import type { z } from 'zod';
import type { ErrorFormat } from './problem.js';

/**
 * One endpoint, stated once: the route the CDK stack and the local gateway
 * serve (lib/app/routes.ts derives the route table from every contract), the
 * input its handler validates (httpHandler takes the contract), and its
 * OpenAPI operation (lib/app/openapi/). A contract lives in its feature's
 * `contracts/` folder and is listed in that folder's index.ts.
 *
 * A handler imports its contract, so a contract holds only what a request
 * needs at run time. The responses are documentation only: a thunk that
 * imports them on demand (`() => import('../openapi/x-responses.js')...`),
 * bundled with the handler but never evaluated by it. Nothing here, nor in
 * a contract, imports zod-to-openapi.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a function may do to the table; the stack grants exactly this. */
export type TableAccess = 'none' | 'read' | 'readwrite';

/**
 * The credential: a bearer token (the handler passes `bearerAuth()`, which
 * checks it before the input), the browser session cookie (read by the
 * handler itself, after the input), or none.
 */
export type AuthScheme = 'bearer' | 'session' | 'none';

/**
 * A path parameter or a request header, for the document only: handlers read
 * them as strings. Plain data, so a handler that validates nothing does not
 * build a zod schema at init.
 */
export interface StringDoc {
  description?: string;
  format?: 'uuid';
}

/** An OpenAPI header object, as JSON. */
export interface HeaderDoc {
  description?: string;
  schema: Readonly<Record<string, unknown>>;
}
export type HeadersDoc = Readonly<Record<string, HeaderDoc>>;

/**
 * One documented answer. Below 400: its body is `schema` as `mediaType`
 * (JSON by default), or none. From 400: its body is the contract's error
 * format (a problem document, or `{message}`), so a string, the description,
 * is enough; a `schema` there states the extension members a problem
 * document carries (not allowed with `{message}`).
 */
export type ResponseDoc =
  | string
  | {
      description: string;
      headers?: HeadersDoc;
      schema?: z.ZodType;
      mediaType?: string;
      /** The same answer in other media types, by media type: the request's `Accept` chooses. */
      alternatives?: Readonly<Record<string, z.ZodType>>;
      /** JSON Schemas `schema` refers to by `$ref` without containing them, registered as components as they are. */
      components?: Readonly<Record<string, z.ZodType>>;
    };

/**
 * The answers of an endpoint by status. Derived ones need not be stated:
 * 401 (with WWW-Authenticate) and 403 for bearer auth, 429 `rate_limited`
 * (with Retry-After) for any credential, 400 for a body that is not JSON,
 * not an object or has unknown fields, and 500; a status stated here
 * replaces the derived one (a stated 429 names `rate_limited` too).
 */
export type ResponsesDoc = Readonly<Record<number, ResponseDoc>>;

interface RouteFields {
  /** Stable function id: CDK construct id, bench/report name; the export's name and, in kebab case, its file's. */
  id: string;
  method: HttpMethod | 'ANY';
  /** API Gateway path syntax, `{name}` for parameters; `$default` catches the rest. */
  path: string;
  /** Handler source, relative to the repository root; exports `handler`. */
  handler: string;
  auth: AuthScheme;
  /** Token calls answer errors as `{message}`; everything else as problem documents (the default). */
  errors?: ErrorFormat;
  /** The path parameters, by name: every `{name}` of `path`. */
  params?: Readonly<Record<string, StringDoc>>;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Request headers the handler reads, by name; optional unless `required` (Idempotency-Key comes from `idempotency`). */
  headers?: Readonly<Record<string, StringDoc & { required?: true }>>;
  /** An Idempotency-Key is required, or honoured when sent (v1 writes). */
  idempotency?: 'required' | 'optional';
  /** Served by the response-streaming function URL instead of API Gateway. */
  streaming?: true;
  table: TableAccess;
  /** Sends to the queues (the stack grants sqs:SendMessage only to these). */
  sends?: true;
  /** Calls addresses users chose (MCP servers): the stack gives it the operator's outbound settings, as it gives the workers. */
  outbound?: true;
  /** Derives webhook secrets or signs and checks pagination cursors (lib/platform/secrets/service-key.ts, http/cursor.ts): the stack lets it read the service key. */
  serviceKey?: true;
  /** Serves the built console and reference pages: the stack ships them in its bundle (web/build.ts). */
  staticFiles?: true;
  /** Creates, updates and deletes the schedules' EventBridge Scheduler schedules: the stack grants exactly that and passes the target's role. */
  schedules?: true;
  timeoutSeconds?: number;
  memoryMb?: number;
}

/** An OpenAPI tag: a group of operations and the text that opens it. */
export interface OpenApiTag {
  name: string;
  description: string;
}

/** States a tag once, in the feature whose operations it groups (`contracts/tags.ts`). */
export const defineTag = (name: string, description: string): OpenApiTag => ({ name, description });

interface OperationFields {
  operationId: string;
  summary: string;
  description?: string;
  /** The document lists every tag its operations use, in the order it first meets them. */
  tags: readonly OpenApiTag[];
  responses: () => Promise<ResponsesDoc>;
}

/** A documented endpoint, or one the document leaves out (API Gateway's `$default`), saying why. */
export type EndpointContract = RouteFields &
  ((OperationFields & { undocumented?: undefined }) | ({ undocumented: string } & { [K in keyof OperationFields]?: undefined }));

/** States a contract, keeping its literal types, so the handler's body and query types come from its schemas. */
export const defineEndpoint = <const C extends EndpointContract>(contract: C): C => contract;

/** The body a handler of `C` gets: its body schema's output. */
export type BodyOf<C> = C extends { body: infer S extends z.ZodType } ? z.output<S> : undefined;
/** The query a handler of `C` gets: its query schema's output. */
export type QueryOf<C> = C extends { query: infer S extends z.ZodType } ? z.output<S> : undefined;
