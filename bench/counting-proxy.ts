import { Agent, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CountingProxy {
  url: string;
  /** Requests forwarded since the last reset. */
  readonly total: number;
  /** Requests since the last reset by `X-Amz-Target` operation (`DynamoDB_20120810.` dropped). */
  byTarget(): Record<string, number>;
  reset(): void;
  close(): Promise<void>;
}

/**
 * An HTTP proxy in front of DynamoDB Local that counts every request and
 * records its `X-Amz-Target`, i.e. one entry per DynamoDB API call the
 * service makes (SDK retries included, since each is a request).
 */
export async function startCountingProxy(upstream: string): Promise<CountingProxy> {
  const target = new URL(upstream);
  const agent = new Agent({ keepAlive: true });
  let total = 0;
  let targets = new Map<string, number>();

  const server = createServer((req, res) => {
    total++;
    const raw = req.headers['x-amz-target'];
    const op = (Array.isArray(raw) ? raw.join(',') : raw ?? '(none)').replace(/^DynamoDB_\d+\./, '');
    targets.set(op, (targets.get(op) ?? 0) + 1);
    const forward = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`counting proxy: ${error.message}`);
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get total() {
      return total;
    },
    byTarget: () => Object.fromEntries([...targets].sort((a, b) => b[1] - a[1])),
    reset() {
      total = 0;
      targets = new Map();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}
