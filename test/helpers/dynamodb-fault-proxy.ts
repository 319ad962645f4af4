import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A proxy in front of DynamoDB Local that answers 500 InternalServerError
 * to the requests `fails(operation, body)` picks (operation: `GetItem`,
 * `UpdateItem`, …) and passes every other one through: the real client and
 * the real table, with one kind of call failing as a network or service
 * fault would make it. `failed` counts the refusals (the SDK retries each
 * call up to 4 times).
 */
export async function startFaultProxy(target: string, fails: (operation: string, body: string) => boolean) {
  const state = { failed: 0 };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const body = Buffer.concat(chunks);
      const operation =
        String(request.headers['x-amz-target'] ?? '')
          .split('.')
          .pop() ?? '';
      if (fails(operation, body.toString('utf8'))) {
        state.failed++;
        response
          .writeHead(500, { 'content-type': 'application/x-amz-json-1.0' })
          .end(JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'injected by the test' }));
        return;
      }
      const skipped = new Set(['host', 'content-length', 'connection']);
      const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !skipped.has(name))) as Record<string, string>;
      try {
        const answer = await fetch(`${target}${request.url}`, { method: request.method, headers, body });
        response.writeHead(answer.status, Object.fromEntries(answer.headers)).end(Buffer.from(await answer.arrayBuffer()));
      } catch {
        response.destroy();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get failed() {
      return state.failed;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
