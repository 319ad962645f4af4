import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, describe, test, vi } from 'vitest';
import { QUEUES } from '#app/queues.js';
import { closeServer, listenLocally } from '../helpers/local-server.js';
import { queuesDrained } from '../helpers/queues.js';
import { signedUpUser, startTestStack } from '../helpers/stack.js';
import { apiFor, node as baseNode, createVersion, runVersion, settledTree, type TestNode, type Tree } from '../helpers/workflows.js';

// The handlers run in this process and the http node reads its settings on every call:
// the local test server on 127.0.0.1 is reachable over plain http for these tests.
process.env.HTTP_NODE_ALLOWED_HOSTS = '127.0.0.1';
process.env.HTTP_NODE_ALLOW_INSECURE = 'true';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let user: Awaited<ReturnType<typeof signedUpUser>>;
let server: Server;
let base: string;
/** Requests the test server received, by path. */
const hits = new Map<string, Array<{ method: string; url: string; body: string; headers: IncomingMessage['headers'] }>>();
const hanging = new Set<IncomingMessage>();

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const url = new URL(req.url!, 'http://x');
      const list = hits.get(url.pathname) ?? [];
      list.push({ method: req.method!, url: req.url!, body, headers: req.headers });
      hits.set(url.pathname, list);
      const [, kind, key] = url.pathname.split('/');
      const count = hits.get(url.pathname)!.length;
      if (kind === 'users') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ id: key, name: `user ${key}`, received: body ? JSON.parse(body) : null }));
      } else if (kind === 'flaky') {
        // 503 the first time, then 200.
        res.writeHead(count === 1 ? 503 : 200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ attempt: count }));
      } else if (kind === 'large') {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end('z'.repeat(600_000));
      } else if (kind === 'broken') {
        res.writeHead(500);
        res.end('down');
      } else if (kind === 'missing') {
        res.writeHead(404);
        res.end('no');
      } else if (kind === 'hang') {
        hanging.add(req);
        req.socket.on('close', () => hanging.delete(req));
      } else {
        res.writeHead(400);
        res.end();
      }
    });
  });
  base = await listenLocally(server);
  // Short visibility so redelivery happens within a test. The worker timeout must exceed the
  // executor's 5 s reserve (a node gets min(node timeout, remaining time - 5 s)), else every
  // node's timeout would be 1 ms.
  stack = await startTestStack({ queues: QUEUES.map((q) => ({ ...q, visibilityTimeoutSeconds: 2, workerTimeoutSeconds: 30, maxReceiveCount: 2 })) });
  user = await signedUpUser(stack);
});
afterAll(async () => {
  await stack.stop();
  await closeServer(server);
});

const api = apiFor(
  () => stack.url,
  () => user.token,
);
type Node = TestNode;
const node = (name: string, type: string, config: Record<string, unknown>, extra: Partial<Node> = {}): Node => ({ ...baseNode(name, type, config), ...extra });
const version = (nodes: Node[], edges: Array<{ from: string; to: string }> = []) => createVersion(api, nodes, edges);
const run = (v: { id: string; entry_node_ids: string[] }, payload: Record<string, unknown> = {}) => runVersion(api, v, payload);
const settled = (requestId: string, timeoutMs?: number) => settledTree(api, requestId, timeoutMs);

const execution = (tree: Tree, n: Node) => tree.node_executions.find((e) => e.node_id === n.id)!;
const http = (name: string, config: Record<string, unknown>, extra: Partial<Node> = {}) => node(name, 'http', { method: 'GET', ...config }, extra);
const fastRetry = (max_attempts: number) => ({ max_attempts, backoff_ms: 10, jitter: false });

describe('http node in a workflow', () => {
  test('templated url and body; its output feeds the next node', async () => {
    const key = randomUUID();
    const call = http('call', {
      method: 'POST',
      url: `${base}/users/{{ user_id }}`,
      headers: { 'X-Request': '{{ user_id }}' },
      body: { tags: '{{ tags }}', note: 'for {{ user_id }}' },
    });
    const pick = node('pick', 'transform', { expression: `\`${call.id}\`.{ "status": status, "name": body.name, "tags": body.received.tags }` });
    const v = await version([call, pick], [{ from: call.id, to: pick.id }]);
    const tree = await settled(await run(v, { user_id: key, tags: ['a', 'b'] }));
    assert.equal(tree.workflow_request.status, 'completed', JSON.stringify(tree));
    assert.deepEqual(execution(tree, pick).output_data, { status: 200, name: `user ${key}`, tags: ['a', 'b'] });
    const output = execution(tree, call).output_data as { status: number; headers: Record<string, string>; body: { received: unknown } };
    assert.equal(output.headers['content-type'], 'application/json');
    assert.deepEqual(output.body.received, { tags: ['a', 'b'], note: `for ${key}` });
    assert.equal(execution(tree, call).attempt_count, 1);
    const received = hits.get(`/users/${key}`)!;
    assert.equal(received.length, 1);
    assert.equal(received[0]!.method, 'POST');
    assert.equal(received[0]!.headers['x-request'], key);
  });

  test('503 then 200 with max_attempts 3: completed after exactly 2 attempts', async () => {
    const path = `/flaky/${randomUUID()}`;
    const call = http('call', { url: `${base}${path}` }, { retry: fastRetry(3) });
    const tree = await settled(await run(await version([call])));
    assert.equal(tree.workflow_request.status, 'completed', JSON.stringify(tree));
    const e = execution(tree, call);
    assert.equal(e.attempt_count, 2);
    assert.deepEqual((e.output_data as { body: unknown }).body, { attempt: 2 });
    assert.equal(e.error, null);
    assert.equal(hits.get(path)!.length, 2);
  });

  test('always 500 with max_attempts 2: the node fails after 2 attempts and the request fails with http_5xx', async () => {
    const path = `/broken/${randomUUID()}`;
    const call = http('call', { url: `${base}${path}` }, { retry: fastRetry(2) });
    const tree = await settled(await run(await version([call])));
    assert.equal(tree.workflow_request.status, 'failed');
    assert.equal(tree.workflow_request.error?.code, 'http_5xx');
    const e = execution(tree, call);
    assert.equal(e.status, 'failed');
    assert.equal(e.attempt_count, 2);
    assert.equal(e.error?.code, 'http_5xx');
    assert.equal(hits.get(path)!.length, 2);
  });

  test('a 404 is not retried', async () => {
    const path = `/missing/${randomUUID()}`;
    const call = http('call', { url: `${base}${path}` }, { retry: fastRetry(3) });
    const tree = await settled(await run(await version([call])));
    assert.equal(tree.workflow_request.status, 'failed');
    const e = execution(tree, call);
    assert.equal(e.attempt_count, 1);
    assert.equal(e.error?.code, 'http_4xx');
    // No retry on its way: every delivery handled, none delayed.
    await queuesDrained(stack);
    assert.equal(hits.get(path)!.length, 1);
  });

  test('retry_on narrows what retries: a 500 is not retried when only timeout is listed', async () => {
    const path = `/broken/${randomUUID()}`;
    const call = http('call', { url: `${base}${path}` }, { retry: { ...fastRetry(3), retry_on: ['timeout'] } });
    const tree = await settled(await run(await version([call])));
    assert.equal(execution(tree, call).attempt_count, 1);
    assert.equal(execution(tree, call).error?.code, 'http_5xx');
  });

  test('a server that never answers: the node timeout (200 ms) fails the node with timeout and the connection is dropped', async () => {
    const path = `/hang/${randomUUID()}`;
    const call = http('call', { url: `${base}${path}` }, { timeout_ms: 200 });
    const started = Date.now();
    const tree = await settled(await run(await version([call])));
    assert.ok(Date.now() - started < 10_000);
    assert.equal(tree.workflow_request.status, 'failed');
    const e = execution(tree, call);
    assert.equal(e.status, 'failed');
    assert.equal(e.attempt_count, 1);
    assert.equal(e.error?.code, 'timeout');
    assert.equal(tree.workflow_request.error?.code, 'timeout');
    assert.equal(hits.get(path)!.length, 1);
    await vi.waitFor(() => assert.equal(hanging.size, 0, 'the runner closed its connection'), { timeout: 1_000, interval: 50 });
  });

  test('a response too large to store fails the node at once (not by redelivery until dead-lettered)', async () => {
    const path = `/large/${randomUUID()}`;
    const call = http('call', { url: `${base}${path}` }, { retry: fastRetry(3) });
    const tree = await settled(await run(await version([call])));
    const e = execution(tree, call);
    assert.equal(e.error?.code, 'response_too_large');
    assert.equal(e.attempt_count, 1);
    assert.equal(hits.get(path)!.length, 1);
  });

  test('config.timeout_ms with retries: timeout is retryable, every attempt counted', async () => {
    const path = `/hang/${randomUUID()}`;
    const call = http('call', { url: `${base}${path}`, timeout_ms: 150 }, { retry: fastRetry(2) });
    const tree = await settled(await run(await version([call])));
    const e = execution(tree, call);
    assert.equal(e.error?.code, 'timeout');
    assert.equal(e.attempt_count, 2);
    assert.equal(hits.get(path)!.length, 2);
  });
});

describe('http node: server-side request forgery', () => {
  test('without HTTP_NODE_ALLOWED_HOSTS the metadata address is refused, once, and never retried', async () => {
    const saved = process.env.HTTP_NODE_ALLOWED_HOSTS;
    delete process.env.HTTP_NODE_ALLOWED_HOSTS;
    try {
      const metadata = http('metadata', { url: 'http://169.254.169.254/latest/meta-data' }, { retry: fastRetry(3) });
      const tree = await settled(await run(await version([metadata])));
      assert.equal(tree.workflow_request.status, 'failed');
      const e = execution(tree, metadata);
      assert.equal(e.status, 'failed');
      assert.equal(e.attempt_count, 1);
      assert.equal(e.error?.code, 'ssrf_blocked');
      assert.equal(tree.workflow_request.error?.code, 'ssrf_blocked');

      // The local server, allowed in the other tests, is loopback: refused as well.
      const local = http('local', { url: `${base}/users/x` });
      const refused = await settled(await run(await version([local])));
      assert.equal(execution(refused, local).error?.code, 'ssrf_blocked');
      assert.equal(hits.get('/users/x'), undefined);

      // A Teredo address (2001::/32), whose embedded IPv4 a tunnel would reach: refused as the other special ranges are.
      const teredo = http('teredo', { url: 'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/' });
      const tunnelled = await settled(await run(await version([teredo])));
      assert.equal(execution(tunnelled, teredo).error?.code, 'ssrf_blocked');
    } finally {
      process.env.HTTP_NODE_ALLOWED_HOSTS = saved;
    }
  });

  test('a template that does not compile is refused when the version is created', async () => {
    const workflow = await api('POST', '/v1/workflows', { name: `wf-${randomUUID()}` });
    const created = await api('POST', `/v1/workflows/${workflow.body.id}/versions`, {
      definition: { nodes: [http('call', { url: 'https://example.com/{{ id + }}' })] },
    });
    assert.equal(created.status, 422, JSON.stringify(created.body));
    assert.deepEqual(
      created.body.errors.map((e: { name: string; code: string }) => [e.name, e.code]),
      [['/definition/nodes/0/config/url', 'invalid_expression']],
    );
  });
});
