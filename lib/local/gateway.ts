import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { RouteDefinition } from '#app/routes.js';
import { matchRoute } from '#platform/http/routing.js';
import { loadHandler } from './handlers.js';
import { installAwsLambdaGlobal, isStreamingHandler, LocalResponseStream, lambdaContext } from './lambda-runtime.js';

/** API Gateway's payload limit. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;
/** API Gateway's integration timeout caps every non-streaming route. */
const API_TIMEOUT_SECONDS = 29;
/**
 * There is no function URL locally, so no 15-minute cap: a streaming
 * invocation gets 31 minutes, and the specification's 30-minute stream
 * limit (STREAM_MAX_SECONDS) is what ends it.
 */
const LOCAL_STREAM_TIMEOUT_SECONDS = 31 * 60;

/** What the gateway routes on; a RouteDefinition is one, and so is a route of a synthesized template. */
export type GatewayRoute = Pick<RouteDefinition, 'id' | 'method' | 'path' | 'streaming' | 'timeoutSeconds'> & { entry?: string };

/** Answers the invocation itself on `res` (a stream). */
export const STREAMED = Symbol('streamed');

/**
 * Runs the function behind a route: its payload 2.0 result, or STREAMED when
 * it wrote the answer to `res` itself.
 */
export type RouteInvoker = (route: GatewayRoute, event: APIGatewayProxyEventV2, res: ServerResponse) => Promise<unknown>;

export interface GatewayOptions {
  routes: readonly GatewayRoute[];
  /** Default: the route's handler file, in this process (`npm start`). */
  invoke?: RouteInvoker;
  port: number;
  host?: string;
  /** Called once per request, after the answer is sent. */
  onRequest?: (line: { method: string; path: string; status: number; ms: number }) => void;
}

export interface RunningGateway {
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer | 'too_large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return 'too_large';
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Builds the API Gateway HTTP API (payload 2.0) event for a request. */
export function toApiGatewayEvent(req: IncomingMessage, body: Buffer, routeKey: string, params: Record<string, string>): APIGatewayProxyEventV2 {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const headers: Record<string, string> = {};
  let cookies: string[] | undefined;
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (name === 'cookie') {
      cookies = (Array.isArray(value) ? value.join(';') : value)
        .split(';')
        .map((c) => c.trim())
        .filter(Boolean);
      continue;
    }
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  const text = body.toString('utf8');
  const isText = Buffer.from(text, 'utf8').equals(body);
  const now = new Date();
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    cookies,
    headers,
    queryStringParameters: Object.keys(query).length > 0 ? query : undefined,
    pathParameters: Object.keys(params).length > 0 ? params : undefined,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method: req.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    body: body.length === 0 ? undefined : isText ? text : body.toString('base64'),
    isBase64Encoded: body.length > 0 && !isText,
  };
}

function writeResult(res: ServerResponse, result: unknown): number {
  // Payload 2.0: a bare value (no statusCode) is a 200 JSON answer.
  if (typeof result !== 'object' || result === null || !('statusCode' in result)) {
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(typeof result === 'string' ? result : JSON.stringify(result));
    return 200;
  }
  const r = result as { statusCode: number; headers?: Record<string, string>; body?: string; cookies?: string[]; isBase64Encoded?: boolean };
  const headers: Record<string, string | string[]> = { ...(r.headers ?? {}) };
  if (r.cookies?.length) headers['Set-Cookie'] = r.cookies;
  res.writeHead(r.statusCode, headers);
  res.end(r.body === undefined ? undefined : r.isBase64Encoded ? Buffer.from(r.body, 'base64') : r.body);
  return r.statusCode;
}

/** The route's handler file run in this process, with API Gateway's timeout, or a function URL's for a stream. */
async function invokeInProcess(route: GatewayRoute, event: APIGatewayProxyEventV2, res: ServerResponse): Promise<unknown> {
  if (!route.entry) throw new Error(`Route ${route.id} names no handler file.`);
  const handler = await loadHandler(route.entry);
  const timeout = route.streaming ? Math.max(route.timeoutSeconds ?? 0, LOCAL_STREAM_TIMEOUT_SECONDS) : (route.timeoutSeconds ?? API_TIMEOUT_SECONDS);
  const context = lambdaContext(route.id, timeout);
  if (isStreamingHandler(handler)) {
    await handler(event, new LocalResponseStream(res), context);
    return STREAMED;
  }
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<typeof TIMED_OUT>((resolve) => (timer = setTimeout(() => resolve(TIMED_OUT), timeout * 1000)));
  const result = await Promise.race([(handler as (e: unknown, c: unknown) => Promise<unknown>)(event, context), timedOut]);
  clearTimeout(timer);
  if (result !== TIMED_OUT) return result;
  problem(res, 504, 'gateway_timeout', 'The handler did not answer in time.');
  return STREAMED;
}

const TIMED_OUT = Symbol('timed out');

function problem(res: ServerResponse, status: number, code: string, detail: string): number {
  const body = { type: `about:blank`, title: code, status, detail, code, trace_id: randomUUID() };
  res.writeHead(status, { 'Content-Type': 'application/problem+json' }).end(JSON.stringify(body));
  return status;
}

/**
 * A small API Gateway: routes each request by the route table to the real
 * handler, as payload 2.0, and serves streaming routes through the
 * `awslambda` stand-in the way a response-streaming function URL would.
 */
export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  installAwsLambdaGlobal();
  const server = createServer(async (req, res) => {
    const started = Date.now();
    let status = 500;
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const matched = matchRoute(req.method ?? 'GET', url.pathname, options.routes);
      if (!matched) {
        status = problem(res, 404, 'not_found', 'No route.');
        return;
      }
      const body = await readBody(req);
      if (body === 'too_large') {
        status = problem(res, 413, 'payload_too_large', 'The request body exceeds 10 MB.');
        return;
      }
      const event = toApiGatewayEvent(req, body, matched.routeKey, matched.params);
      const result = await (options.invoke ?? invokeInProcess)(matched.route, event, res);
      status = result === STREAMED ? res.statusCode : writeResult(res, result);
    } catch (error) {
      // API Gateway answers a crashed integration with a bare 500; so do we, and say why on the console.
      console.error(error);
      status = res.headersSent ? res.statusCode : problem(res, 500, 'internal_error', 'The handler crashed.');
      if (!res.writableEnded) res.end();
    } finally {
      options.onRequest?.({ method: req.method ?? '', path: req.url ?? '', status, ms: Date.now() - started });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
