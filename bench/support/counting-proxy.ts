import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The core of the HTTP proxies the bench puts in front of the local
 * emulators (bench/support/dynamo-proxy.ts, bench/support/sqs-proxy.ts) to
 * count what the service asks of them. Both emulators speak the AWS JSON
 * protocol: one POST per API call, the operation in `X-Amz-Target`, a JSON
 * body. Responses go back to the service byte for byte (DynamoDB's
 * `x-amz-crc32` stays valid); a proxy may rewrite a request body.
 */

export interface Exchange {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Sends a (possibly rewritten) request body upstream and resolves with the whole answer. */
export type Forward = (body: Buffer) => Promise<Exchange>;

export interface CountingProxy<Call> {
  url: string;
  /** Requests forwarded since the last reset. */
  readonly total: number;
  /** Calls sent and not yet answered (of the operations the proxy tracks). */
  readonly inFlight: number;
  /** Every call with a response, in order of completion. */
  readonly calls: readonly Call[];
  /** Requests since the last reset by `X-Amz-Target` operation, the service prefix dropped, most frequent first. */
  byTarget(): Record<string, number>;
  reset(): void;
  close(): Promise<void>;
}

export interface CountingProxyOptions<Call> {
  upstream: string;
  /** Dropped from `X-Amz-Target` to name the operation, e.g. `/^AmazonSQS\./`. */
  targetPrefix: RegExp;
  /** Which operations `inFlight` counts (all by default). */
  tracksInFlight?: (op: string) => boolean;
  /** Forwards one call (rewriting it if need be) and describes it. */
  record: (op: string, body: Buffer, forward: Forward) => Promise<{ exchange: Exchange; call: Call }>;
  onClose?: () => void;
}

/**
 * Reads the whole request, lets `handle` rewrite it and observe the whole
 * answer (it may delay it), and writes the answer back unchanged. A client
 * that goes away aborts the upstream call.
 */
function forwardingServer(upstream: string, agent: Agent, handle: (req: IncomingMessage, body: Buffer, forward: Forward) => Promise<Exchange>) {
  const target = new URL(upstream);
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let closed = false;
      const pending = new Set<ReturnType<typeof httpRequest>>();
      res.on('close', () => {
        closed = true;
        for (const p of pending) p.destroy();
      });
      const forward: Forward = (body) =>
        new Promise((resolve, reject) => {
          const headers = { ...req.headers, 'content-length': String(body.length) };
          delete headers['transfer-encoding'];
          const call = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent }, (answer) => {
            const parts: Buffer[] = [];
            answer.on('data', (chunk: Buffer) => parts.push(chunk));
            answer.on('end', () => {
              pending.delete(call);
              resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: Buffer.concat(parts) });
            });
            answer.on('error', reject);
          });
          pending.add(call);
          call.on('error', (error) => {
            pending.delete(call);
            reject(error);
          });
          call.end(body);
        });
      handle(req, Buffer.concat(chunks), forward).then(
        (exchange) => {
          if (closed) return;
          res.writeHead(exchange.status, exchange.headers);
          res.end(exchange.body);
        },
        (error: Error) => {
          if (closed) return;
          if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
          res.end(`counting proxy: ${error.message}`);
        },
      );
    });
  });
}

export const parseJson = (body: Buffer): Record<string, unknown> | undefined => {
  if (body.length === 0) return undefined;
  try {
    const parsed = JSON.parse(body.toString('utf8')) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

/** Starts a proxy on a free port of 127.0.0.1 that counts every call by operation and keeps what `record` says of each. */
export async function startCountingProxy<Call>(options: CountingProxyOptions<Call>): Promise<CountingProxy<Call>> {
  const agent = new Agent({ keepAlive: true });
  const tracked = options.tracksInFlight ?? (() => true);
  let total = 0;
  let inFlight = 0;
  let targets = new Map<string, number>();
  let calls: Call[] = [];
  const server = forwardingServer(options.upstream, agent, async (req, body, forward) => {
    const raw = req.headers['x-amz-target'];
    const op = (Array.isArray(raw) ? raw.join(',') : (raw ?? '(none)')).replace(options.targetPrefix, '');
    total++;
    targets.set(op, (targets.get(op) ?? 0) + 1);
    const counted = tracked(op);
    if (counted) inFlight++;
    try {
      const { exchange, call } = await options.record(op, body, forward);
      calls.push(call);
      return exchange;
    } finally {
      if (counted) inFlight--;
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get total() {
      return total;
    },
    get inFlight() {
      return inFlight;
    },
    get calls() {
      return calls;
    },
    byTarget: () => Object.fromEntries([...targets].sort((a, b) => b[1] - a[1])),
    reset() {
      total = 0;
      targets = new Map();
      calls = [];
    },
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      });
      options.onClose?.();
    },
  };
}
