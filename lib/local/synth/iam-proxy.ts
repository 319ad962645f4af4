import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { iamRequests, type RawRequest, type RequestScope, targetOperation } from './aws-requests.js';
import { type AccessOptions, answerRefusal, authorize } from './caller-access.js';

/**
 * What each local function's AWS SDK talks to instead of the emulator: the
 * emulators check no permission, so the proxy does, with the function's
 * role as deployed, and passes allowed calls through untouched.
 */

export interface IamProxyOptions extends AccessOptions, RequestScope {
  service: 'dynamodb' | 'sqs';
  /** The emulator's endpoint, `http://127.0.0.1:PORT`. */
  upstream: string;
  /** 0 (any free port) unless given. */
  port?: number;
  /**
   * The base of the emulator's queue URLs (fauxqs names them
   * `http://sqs.<region>.<host>:<port>`): functions are given queue URLs on
   * the proxy, so the SDK, which sends to the host of a QueueUrl, comes here;
   * the proxy swaps the bases both ways.
   */
  upstreamQueueBase?: string;
}

export interface RunningEndpoint {
  endpoint: string;
  stop(): Promise<void>;
}

export async function startIamProxy(options: IamProxyOptions): Promise<RunningEndpoint> {
  const upstream = new URL(options.upstream);
  let rewrite: Rewrite | undefined;
  const server = createServer((incoming, outgoing) => {
    readBody(incoming)
      .then((body) => {
        const raw: RawRequest = { method: incoming.method ?? 'GET', url: incoming.url, headers: incoming.headers, body };
        const refusal = authorize(options, raw, iamRequests(options.service, raw, options));
        if (!refusal) return forward(upstream, rewrite ? { ...raw, body: rewrite.request(raw.body) } : raw, outgoing, rewrite?.response);
        const protocol = options.service === 'dynamodb' ? 'dynamodb' : targetOperation(raw) === undefined ? 'sqsQuery' : 'sqsJson';
        answerRefusal(outgoing, protocol, refusal.message);
      })
      .catch(() => outgoing.destroy());
  });
  const running = await listen(server, options.port ?? 0);
  if (options.upstreamQueueBase) rewrite = swapping(running.endpoint, options.upstreamQueueBase);
  return running;
}

interface Rewrite {
  request(body: Buffer): Buffer;
  response(body: Buffer): Buffer;
}

/** Replaces one URL base by another in a body, as JSON writes it and as a form (the query protocol) encodes it. */
function swapping(local: string, upstream: string): Rewrite {
  const swap = (body: Buffer, from: string, to: string) => {
    const text = body.toString('utf8');
    if (!text.includes(from) && !text.includes(encodeURIComponent(from))) return body;
    return Buffer.from(text.replaceAll(from, to).replaceAll(encodeURIComponent(from), encodeURIComponent(to)), 'utf8');
  };
  return { request: (body) => swap(body, local, upstream), response: (body) => swap(body, upstream, local) };
}

export function readBody(incoming: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => resolve(Buffer.concat(chunks)));
    incoming.on('error', reject);
  });
}

function forward(upstream: URL, raw: RawRequest, outgoing: ServerResponse, rewriteAnswer?: (body: Buffer) => Buffer): void {
  const send = upstream.protocol === 'https:' ? httpsRequest : httpRequest;
  const headers = { ...raw.headers, 'content-length': String(raw.body.length) };
  const upstreamRequest = send(
    { protocol: upstream.protocol, hostname: upstream.hostname, port: upstream.port, method: raw.method, path: raw.url, headers },
    (answer) => {
      answer.on('error', () => outgoing.destroy());
      if (!rewriteAnswer) {
        // Raw headers keep their case (x-amzn-ErrorType) and repeats.
        outgoing.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
        answer.pipe(outgoing);
        return;
      }
      void readBody(answer).then(
        (body) => {
          const rewritten = rewriteAnswer(body);
          const rawHeaders = answer.rawHeaders.flatMap((value, i, all) =>
            i % 2 === 1 ? [] : value.toLowerCase() === 'content-length' ? [value, String(rewritten.length)] : [value, all[i + 1]!],
          );
          outgoing.writeHead(answer.statusCode ?? 502, answer.statusMessage, rawHeaders).end(rewritten);
        },
        () => outgoing.destroy(),
      );
    },
  );
  upstreamRequest.on('error', (error) => {
    // The SDK retries a 502 as it would a failing AWS endpoint.
    if (outgoing.headersSent) outgoing.destroy();
    else outgoing.writeHead(502, { 'content-type': 'text/plain' }).end(`The upstream ${upstream.origin} did not answer: ${error.message}`);
  });
  upstreamRequest.end(raw.body);
}

export async function listen(server: Server, port: number): Promise<RunningEndpoint> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
