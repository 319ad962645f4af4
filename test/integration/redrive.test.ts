import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, test, vi } from 'vitest';
import { adminCommands } from '#accounts/admin-commands.js';
import { closeServer, listenLocally } from '../helpers/local-server.js';
import { readSseBlocks } from '../helpers/sse-blocks.js';
import { bearer, signedUpUser, startTestStack } from '../helpers/stack.js';
import { Receiver, verified } from '../helpers/webhook-receiver.js';
import { type Api, apiFor, createVersion, node, runVersion, settledTree, type TestNode, type Tree } from '../helpers/workflows.js';

// The handlers and workers run in this process and read these on every call: the http nodes'
// server and the webhook receiver are on 127.0.0.1 over http:.
process.env.HTTP_NODE_ALLOWED_HOSTS = '127.0.0.1';
process.env.HTTP_NODE_ALLOW_INSECURE = 'true';
process.env.OUTBOUND_ALLOWED_HOSTS = '127.0.0.1';
process.env.OUTBOUND_ALLOW_INSECURE = 'true';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let server: Server;
let base: string;
const receiver = new Receiver();
/** Calls the server received, by path. */
const hits = new Map<string, number>();
/** Paths the server answers 500 (its "down" services), and how long it waits before answering each path. */
const down = new Set<string>();
const slow = new Map<string, number>();

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = new URL(req.url!, 'http://x').pathname;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const answer = () => {
        res.writeHead(down.has(path) ? 500 : 200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ path, up: !down.has(path) }));
      };
      setTimeout(answer, slow.get(path) ?? 0);
    });
  });
  [base] = await Promise.all([listenLocally(server), receiver.start()]);
  stack = await startTestStack();
});
afterAll(async () => {
  await Promise.all([stack.stop(), closeServer(server), receiver.stop()]);
});

type ExecutionTree = Omit<Tree, 'workflow_request' | 'node_executions'> & {
  workflow_request: Tree['workflow_request'] & { redrive_count: number };
  node_executions: Array<Tree['node_executions'][number] & { id: string }>;
  redriven_node_executions: Array<{ id: string; node_id: string; status: string; attempt_count: number }>;
};

/**
 * A 5-node chain for a fresh account: three http nodes (the third calls a
 * service that is down at first) and two transforms after them.
 */
async function fixture() {
  const user = await signedUpUser(stack, { plan: 'team' });
  const api = apiFor(
    () => stack.url,
    () => user.token,
  );
  const key = randomUUID();
  const paths = [1, 2, 3].map((n) => `/${key}/service-${n}`);
  const nodes: TestNode[] = [
    ...paths.map((path, i) => node(`call ${i + 1}`, 'http', { method: 'GET', url: `${base}${path}` })),
    node('pick', 'transform', { expression: '$each($, function($v) { $v.body.path })' }),
    node('done', 'transform', { expression: '{ "done": true }' }),
  ];
  const edges = nodes.slice(1).map((n, i) => ({ from: nodes[i]!.id, to: n.id }));
  const version = await createVersion(api, nodes, edges);
  down.add(paths[2]!);
  return { user, api, paths, nodes, version };
}

const settled = (api: Api, id: string) => settledTree(api, id) as Promise<ExecutionTree>;
const statusesOf = (tree: ExecutionTree, nodes: TestNode[]) => nodes.map((n) => tree.node_executions.find((e) => e.node_id === n.id)?.status);
const redrive = (api: Api, id: string, key = randomUUID()) => api('POST', `/v1/workflow-requests/${id}/redrive`, undefined, { 'Idempotency-Key': key });

/** Every data message of the request's live stream until it closes (at most 20 s). */
async function listen(token: string, id: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${stack.url}/v1/workflow-requests/${id}/listen`, {
    headers: { ...bearer(token), ...headers },
    signal: AbortSignal.timeout(20_000),
  });
  assert.equal(response.status, 200);
  const messages: Array<{ workflow_request?: Record<string, unknown>; node_execution?: Record<string, unknown> }> = [];
  await readSseBlocks(response.body, (block) => {
    const data = block
      .split('\n')
      .find((line) => line.startsWith('data: '))
      ?.slice(6);
    if (data && data !== 'keepalive') messages.push(JSON.parse(data));
  });
  return messages;
}

describe('POST /v1/workflow-requests/{id}/redrive', () => {
  test('a request that failed at node 3 of 5 (its server down) runs again from node 3 once the server is back: nodes 1-2 are not run again', async () => {
    // Prepare: an endpoint for the request's ends; the request fails at node 3.
    const { user, api, paths, nodes, version } = await fixture();
    const hook = await api(
      'POST',
      '/v1/webhook-endpoints',
      { url: `${receiver.url}/redrive-${user.accountId}`, events: ['workflow_request.failed', 'workflow_request.completed'] },
      { 'Idempotency-Key': randomUUID() },
    );
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
    const id = await runVersion(api, version);
    const failed = await settled(api, id);
    assert.equal(failed.workflow_request.status, 'failed');
    assert.equal(failed.workflow_request.error?.code, 'http_5xx');
    assert.deepEqual(statusesOf(failed, nodes), ['completed', 'completed', 'failed', 'stopped', 'stopped']);
    assert.deepEqual(
      paths.map((p) => hits.get(p)),
      [1, 1, 1],
    );
    const firstIds = new Map(failed.node_executions.map((e) => [e.node_id, e.id]));

    // Act: the server is back; redrive.
    down.delete(paths[2]!);
    const key = randomUUID();
    const answer = await redrive(api, id, key);

    // Assert: 200, in progress, redriven once.
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.status, 'in_progress');
    assert.equal(answer.body.redrive_count, 1);
    assert.equal(answer.body.id, id);
    // A replay of the same key answers the same.
    const replay = await redrive(api, id, key);
    assert.equal(replay.status, 200);
    assert.equal(replay.headers.get('idempotency-replayed'), 'true');
    assert.deepEqual(replay.body, answer.body);

    // The stream, opened after the redrive, shows nodes 3-5 running again and the new end, then closes.
    const streamed = await listen(user.token, id);
    const last = streamed.at(-1)?.workflow_request;
    assert.equal(last?.status, 'completed', JSON.stringify(streamed));
    assert.equal(last?.redrive_count, 1);
    const ran = streamed.flatMap((m) => (m.node_execution?.status === 'completed' ? [String(m.node_execution.node_id)] : []));
    for (const n of nodes.slice(2)) assert.ok(ran.includes(n.id), `node ${n.name} streamed completed`);
    const streamedIds = new Set(streamed.flatMap((m) => (m.node_execution ? [String(m.node_execution.id)] : [])));
    for (const n of nodes.slice(2)) assert.ok(!streamedIds.has(firstIds.get(n.id)!), `node ${n.name} streamed as a new execution`);

    const tree = await settled(api, id);
    assert.equal(tree.workflow_request.status, 'completed');
    assert.equal(tree.workflow_request.redrive_count, 1);
    assert.deepEqual(statusesOf(tree, nodes), ['completed', 'completed', 'completed', 'completed', 'completed']);
    assert.deepEqual(
      paths.map((p) => hits.get(p)),
      [1, 1, 2],
      'nodes 1-2 were not called again',
    );
    for (const n of nodes.slice(0, 2)) assert.equal(tree.node_executions.find((e) => e.node_id === n.id)?.id, firstIds.get(n.id), 'kept execution');
    const third = tree.node_executions.find((e) => e.node_id === nodes[2]!.id)!;
    assert.notEqual(third.id, firstIds.get(nodes[2]!.id));
    assert.equal(third.attempt_count, 2, 'attempts go on');
    // Node 4 ran on node 3's new output.
    assert.deepEqual(tree.node_executions.find((e) => e.node_id === nodes[3]!.id)?.output_data, paths[2]);
    // The replaced executions stay in the history.
    assert.deepEqual(
      tree.redriven_node_executions.map((e) => [e.node_id, e.id, e.status]),
      nodes
        .slice(2)
        .map((n) => [n.id, firstIds.get(n.id), n === nodes[2] ? 'failed' : 'stopped'])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );

    // A listener that resumes from before the first end is not closed by it: it gets to the new end.
    const resumed = await listen(user.token, id, { 'Last-Event-ID': '1' });
    assert.equal(resumed.at(-1)?.workflow_request?.status, 'completed');
    assert.ok(
      resumed.some((m) => m.workflow_request?.status === 'failed' && m.workflow_request.redrive_count === undefined),
      'the old end was passed, not stopped at',
    );

    // Webhooks: the first end and the new one, each its own delivery.
    const delivered = await vi.waitFor(
      () => {
        const received = receiver.of(`redrive-${user.accountId}`);
        if (received.length < 2) throw new Error(`${received.length} deliveries`);
        return received.map((r) => verified(hook.body.secret, r) as { type: string; data: { redrive_count: number; status: string } });
      },
      { timeout: 20_000, interval: 100 },
    );
    assert.deepEqual(
      delivered.map((d) => [d.type, d.data.redrive_count]),
      [
        ['workflow_request.failed', 0],
        ['workflow_request.completed', 1],
      ],
    );

    // Metering: one request created; 5 node executions at its first end, then only the 3 that ran again.
    const activity = await api('GET', '/v1/activity/daily?days=1');
    assert.equal(activity.status, 200);
    const today = activity.body.data.at(-1);
    assert.deepEqual([today.request_count, today.node_count], [1, 8]);

    // Completed now: not redrivable.
    const again = await redrive(api, id);
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'request_not_redrivable');
  });

  test('two redrives at once start it once: one answers 200, the other 409; node 3 runs once more', async () => {
    const { api, paths, version } = await fixture();
    const id = await runVersion(api, version);
    assert.equal((await settled(api, id)).workflow_request.status, 'failed');
    down.delete(paths[2]!);

    const answers = await Promise.all([redrive(api, id), redrive(api, id)]);

    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409], JSON.stringify(answers.map((a) => a.body)));
    assert.equal(answers.find((a) => a.status === 409)?.body.code, 'request_not_redrivable');
    const tree = await settled(api, id);
    assert.equal(tree.workflow_request.status, 'completed');
    assert.equal(tree.workflow_request.redrive_count, 1);
    assert.deepEqual(
      paths.map((p) => hits.get(p)),
      [1, 1, 2],
    );
  });

  test('a redrive racing a stop ends in one state both answers agree with', async () => {
    const { api, paths, version, nodes } = await fixture();
    const id = await runVersion(api, version);
    assert.equal((await settled(api, id)).workflow_request.status, 'failed');
    down.delete(paths[2]!);
    // Node 3 takes a while, so a stop after the redrive finds it running.
    slow.set(paths[2]!, 1_000);

    const [redriven, stopped] = await Promise.all([redrive(api, id), api('POST', `/v1/workflow-requests/${id}/stop`)]);

    assert.equal(stopped.status, 200);
    const tree = await settled(api, id);
    if (stopped.body.status === 'stopped') {
      // The stop came after the redrive: it stopped what the redrive started.
      assert.equal(redriven.status, 200);
      assert.equal(stopped.body.redrive_count, 1);
      assert.equal(tree.workflow_request.status, 'stopped');
    } else {
      // The stop came first and found the request ended: the redrive ran it.
      assert.equal(stopped.body.status, 'failed');
      assert.equal(redriven.status, 200);
      assert.equal(tree.workflow_request.status, 'completed');
    }
    for (const status of statusesOf(tree, nodes)) assert.ok(['completed', 'stopped'].includes(String(status)), JSON.stringify(tree));
  });

  test('the usage window is checked as at creation: a full window answers 429 usage_window_exceeded, and the request stays failed, nothing run', async () => {
    // Prepare: a request that failed at node 3, on an account whose five-hour window its first run filled.
    const { user, api, version, paths } = await fixture();
    const id = await runVersion(api, version);
    const failed = await settled(api, id);
    assert.equal(failed.workflow_request.status, 'failed');
    await adminCommands(stack.table)['account:set-limits']({ 'account-id': user.accountId, 'five-hour-usd': '0.000001' });
    down.delete(paths[2]!);
    const before = paths.map((p) => hits.get(p));

    // Act
    const refused = await redrive(api, id);

    // Assert: refused as a creation is, and nothing changed or ran.
    assert.equal(refused.status, 429, JSON.stringify(refused.body));
    assert.equal(refused.body.code, 'usage_window_exceeded');
    const after = await settled(api, id);
    assert.equal(after.workflow_request.status, 'failed');
    assert.equal(after.workflow_request.redrive_count, 0);
    assert.deepEqual(
      after.node_executions.map((e) => [e.id, e.status]),
      failed.node_executions.map((e) => [e.id, e.status]),
    );
    assert.deepEqual(
      paths.map((p) => hits.get(p)),
      before,
    );
  });

  test('a request that is not failed or stopped answers 409 request_not_redrivable; another account’s 404', async () => {
    const { api, version, paths } = await fixture();
    down.delete(paths[2]!);
    const id = await runVersion(api, version);
    assert.equal((await settled(api, id)).workflow_request.status, 'completed');
    const other = await signedUpUser(stack);

    const refused = await redrive(api, id);
    const foreign = await apiFor(
      () => stack.url,
      () => other.token,
    )('POST', `/v1/workflow-requests/${id}/redrive`);

    assert.equal(refused.status, 409);
    assert.equal(refused.body.code, 'request_not_redrivable');
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.code, 'not_found');
  });
});
