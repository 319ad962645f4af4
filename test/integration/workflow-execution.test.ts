import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, test, vi } from 'vitest';
import { QUEUES } from '#app/queues.js';
import { NODE_TASKS_QUEUE } from '#execution/queues.js';
import { MAX_OUTPUT_DEPTH } from '#execution/run-node.js';
import { workflowRequests } from '#execution/workflow-requests.js';
import { JSON_MAX_DEPTH } from '#platform/config/limits.js';
import { keys } from '#platform/table/keys.js';
import { pendingRequest } from '../helpers/pending-request.js';
import { queuesDrained } from '../helpers/queues.js';
import { bearer, signedUpUser, startTestStack } from '../helpers/stack.js';
import { apiFor, createVersion, node, runVersion, settledTree, type TestNode, type Tree, transform } from '../helpers/workflows.js';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let user: Awaited<ReturnType<typeof signedUpUser>>;
let sqs: SQSClient;

beforeAll(async () => {
  // Short visibility and few receives so redelivery and dead-lettering happen within a test.
  stack = await startTestStack({ queues: QUEUES.map((q) => ({ ...q, visibilityTimeoutSeconds: 2, workerTimeoutSeconds: 2, maxReceiveCount: 2 })) });
  user = await signedUpUser(stack);
  sqs = new SQSClient({ endpoint: stack.sqsEndpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
});
afterAll(async () => {
  sqs.destroy();
  await stack.stop();
});

const api = apiFor(
  () => stack.url,
  () => user.token,
);
type Node = TestNode;
const version = (nodes: Node[], edges: Array<{ from: string; to: string; when?: string }>) => createVersion(api, nodes, edges);

const run = (v: { id: string; entry_node_ids: string[] }, payload: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
  runVersion(api, v, payload, extra);
const settled = (requestId: string, timeoutMs?: number) => settledTree(api, requestId, timeoutMs);

/** Where a node task is sent by hand, as a redelivery would be. */
const nodeTasksQueueUrl = () => stack.queues.find((q) => q.definition.name === NODE_TASKS_QUEUE)!.url;

const byName = (tree: Tree, nodes: Node[]) => Object.fromEntries(nodes.map((n) => [n.name, tree.node_executions.find((e) => e.node_id === n.id)!]));

describe('workflow execution on SQS workers', () => {
  test('a chain runs in order and each node sees its parent output keyed by parent id', async () => {
    const a = transform('a', '{ "n": n + 1 }');
    const b = transform('b', '');
    b.config.expression = `{ "n": \`${a.id}\`.n * 10 }`;
    const v = await version([a, b], [{ from: a.id, to: b.id }]);
    const id = await run(v, { n: 4 });
    const tree = await settled(id);
    assert.equal(tree.workflow_request.status, 'completed');
    const nodes = byName(tree, [a, b]);
    assert.deepEqual(nodes.a!.output_data, { n: 5 });
    assert.deepEqual(nodes.b!.output_data, { n: 50 });
    assert.equal(nodes.a!.attempt_count, 1);
    const request = (await api('GET', `/v1/workflow-requests/${id}`)).body;
    assert.equal(request.parent_workflow_request_id, id);
    assert.equal(request.user_id, user.accountId);
    assert.ok(request.started_at && request.completed_at);
  });

  test('fan-out and fan-in: the join runs once, after both branches, with both outputs', async () => {
    const start = transform('start', '{ "v": v }');
    const left = transform('left', '"L"');
    const right = transform('right', '"R"');
    const join = transform('join', '');
    join.config.expression = `[\`${left.id}\`, \`${right.id}\`]`;
    const v = await version(
      [start, left, right, join],
      [
        { from: start.id, to: left.id },
        { from: start.id, to: right.id },
        { from: left.id, to: join.id },
        { from: right.id, to: join.id },
      ],
    );
    const tree = await settled(await run(v, { v: 1 }));
    assert.equal(tree.workflow_request.status, 'completed');
    const nodes = byName(tree, [start, left, right, join]);
    assert.deepEqual(nodes.join!.output_data, ['L', 'R']);
    assert.equal(nodes.join!.attempt_count, 1);
  });

  test('fan-in across deliveries: branches run from the queue each mark the join once, and it runs once', async () => {
    const start = transform('start', '1');
    const branches = Array.from({ length: 4 }, (_, i) => ({ ...transform(`b${i}`, `${i}`), retry: { max_attempts: 2, backoff_ms: 10 } }));
    const join = transform('join', '$count($keys($))');
    const v = await version(
      [start, ...branches, join],
      [...branches.map((b) => ({ from: start.id, to: b.id })), ...branches.map((b) => ({ from: b.id, to: join.id }))],
    );
    const tree = await settled(await run(v));
    assert.equal(tree.workflow_request.status, 'completed');
    const joined = tree.node_executions.find((n) => n.node_id === join.id)!;
    assert.equal(joined.output_data, 4);
    assert.equal(joined.attempt_count, 1);
  });

  test('a condition takes one branch: the other and everything only it leads to are skipped; a join with one live parent runs', async () => {
    const check = node('check', 'condition');
    const big = transform('big', '"big"');
    const bigOnly = transform('bigOnly', '"after big"');
    const small = transform('small', '"small"');
    const final = transform('final', '$');
    const v = await version(
      [check, big, bigOnly, small, final],
      [
        { from: check.id, to: big.id, when: 'amount > 100' },
        { from: check.id, to: small.id, when: 'amount <= 100' },
        { from: big.id, to: bigOnly.id },
        { from: big.id, to: final.id },
        { from: small.id, to: final.id },
      ],
    );
    const tree = await settled(await run(v, { amount: 5 }));
    assert.equal(tree.workflow_request.status, 'completed');
    const nodes = byName(tree, [check, big, bigOnly, small, final]);
    assert.deepEqual(Object.fromEntries(Object.entries(nodes).map(([k, n]) => [k, n.status])), {
      check: 'completed',
      big: 'skipped',
      bigOnly: 'skipped',
      small: 'completed',
      final: 'completed',
    });
    assert.deepEqual(nodes.final!.output_data, { [small.id]: 'small' });
  });

  test('a node that fails fails the request, and nothing is left open', async () => {
    const a = transform('a', '{ "x": 1 }');
    const bad = transform('bad', '$error("no good")');
    const c = transform('c', '1');
    const other = transform('other', '2');
    const v = await version(
      [a, bad, c, other],
      [
        { from: a.id, to: bad.id },
        { from: bad.id, to: c.id },
        { from: a.id, to: other.id },
      ],
    );
    const tree = await settled(await run(v));
    assert.equal(tree.workflow_request.status, 'failed', JSON.stringify(tree));
    assert.equal(tree.workflow_request.error?.code, 'expression_error');
    const nodes = byName(tree, [a, bad, c, other]);
    assert.equal(nodes.bad!.status, 'failed');
    assert.equal(nodes.bad!.error?.code, 'expression_error');
    assert.ok(['stopped'].includes(nodes.c!.status));
    for (const n of tree.node_executions) assert.ok(['completed', 'failed', 'skipped', 'stopped'].includes(n.status), n.status);
  });

  test('stop: the request stops, its open nodes stop, and a second stop returns it unchanged', async () => {
    const chain = Array.from({ length: 15 }, (_, i) => transform(`n${i}`, '$'));
    const v = await version(
      chain,
      chain.slice(1).map((n, i) => ({ from: chain[i]!.id, to: n.id })),
    );
    const id = await run(v);
    const stop = await api('POST', `/v1/workflow-requests/${id}/stop`);
    assert.equal(stop.status, 200);
    assert.equal(stop.body.status, 'stopped');
    const again = await api('POST', `/v1/workflow-requests/${id}/stop`);
    assert.deepEqual(again.body, stop.body);
    // Nodes already handed to a worker finish their delivery: wait until every delivery is handled.
    await queuesDrained(stack);
    const tree = await settled(id);
    assert.equal(tree.workflow_request.status, 'stopped');
    assert.ok(tree.node_executions.some((n) => n.status === 'stopped'));
    for (const n of tree.node_executions) assert.ok(['completed', 'stopped'].includes(n.status), n.status);
  });

  test('exactly once: duplicated and redelivered messages never run a completed node again', async () => {
    const a = transform('a', '{ "t": $millis() }');
    const b = transform('b', '1');
    const v = await version([a, b], [{ from: a.id, to: b.id }]);
    const id = await run(v);
    const first = await settled(id);
    const events = async () =>
      (
        await stack.table.db.send(
          new QueryCommand({
            TableName: stack.tableName,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :e)',
            ExpressionAttributeValues: { ':pk': keys.requestEvent(id, 0).pk, ':e': 'EVENT#' },
          }),
        )
      ).Items?.length;
    // The terminal event is appended just after the request turns completed, by the delivery that completed it.
    await queuesDrained(stack);
    const before = await events();
    for (const n of [a, b, a]) {
      await sqs.send(new SendMessageCommand({ QueueUrl: nodeTasksQueueUrl(), MessageBody: JSON.stringify({ request_id: id, node_id: n.id }) }));
    }
    // Every duplicate delivered and handled (and none retried or dead-lettered).
    await queuesDrained(stack);
    const second = await settled(id);
    assert.deepEqual(second.node_executions, first.node_executions);
    assert.equal(await events(), before);
  });

  test('a worker that died mid-node is retried by redelivery: the node runs again once its lease is over', async () => {
    const a = transform('a', '"ran"');
    const v = await version([a], []);
    const repo = workflowRequests(stack.table);
    // Prepare: a request whose only node looks claimed by a worker that died (lease already expired).
    const id = await run(v);
    await settled(id);
    await repo.transitionNode(id, a.id, ['completed'], { status: 'in_progress', lease_expires_at: Date.now() - 1, output_data: null });
    await repo.transitionRequest(id, ['completed'], { status: 'in_progress', completed_at: null });
    await sqs.send(new SendMessageCommand({ QueueUrl: nodeTasksQueueUrl(), MessageBody: JSON.stringify({ request_id: id, node_id: a.id }) }));
    const tree = await settled(id);
    assert.equal(tree.workflow_request.status, 'completed');
    assert.equal(tree.node_executions[0]!.attempt_count, 2);
    assert.equal(tree.node_executions[0]!.output_data, 'ran');
  });

  test('a message that keeps failing reaches the DLQ, which marks its node and request failed', async () => {
    const repo = workflowRequests(stack.table);
    // Prepare: a request whose version does not exist, so every delivery throws.
    const { id, nodeId, request, node } = pendingRequest(user.accountId);
    await repo.create(request, [node]);
    await sqs.send(new SendMessageCommand({ QueueUrl: nodeTasksQueueUrl(), MessageBody: JSON.stringify({ request_id: id, node_id: nodeId }) }));
    const tree = await settled(id, 30_000);
    assert.equal(tree.workflow_request.status, 'failed');
    assert.equal(tree.workflow_request.error?.code, 'delivery_exhausted');
    assert.equal(tree.node_executions[0]!.status, 'failed');
  });
});

describe('workflow request endpoints', () => {
  test('run validates its references: unknown version, non-entry node, foreign chat', async () => {
    const a = transform('a', '1');
    const b = transform('b', '2');
    const v = await version([a, b], [{ from: a.id, to: b.id }]);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ workflow_version_id: randomUUID(), entry_node_ids: [a.id] }, '/workflow_version_id'],
      [{ workflow_version_id: v.id, entry_node_ids: [b.id] }, '/entry_node_ids/0'],
      [{ workflow_version_id: v.id, entry_node_ids: [a.id], chat_id: randomUUID() }, '/chat_id'],
    ];
    for (const [body, pointer] of cases) {
      const response = await api('POST', '/v1/workflow-requests/run', body);
      assert.equal(response.status, 422, JSON.stringify(response.body));
      assert.equal(response.body.code, 'validation_failed');
      assert.equal(response.body.errors[0].name, pointer);
    }
    const missing = await api('POST', '/v1/workflow-requests/run', { entry_node_ids: [a.id] });
    assert.equal(missing.status, 422);
  });

  test('a version whose agent lists tools (not built yet) is refused before it starts', async () => {
    const v = await version([node('agent', 'agent', { model: 'local/echo', tools: [{ name: 'search' }] })], []);
    const response = await api('POST', '/v1/workflow-requests/run', { workflow_version_id: v.id, entry_node_ids: v.entry_node_ids });
    assert.equal(response.status, 422);
    assert.match(response.body.errors[0].reason, /tools are not supported/);
  });

  test('an output too large to store fails the node instead of the whole delivery', async () => {
    const big = transform('big', '$pad("", 310000, "x")');
    const tree = await settled(await run(await version([big], [])));
    assert.equal(tree.workflow_request.status, 'failed');
    assert.equal(tree.node_executions[0]!.error?.code, 'output_too_large');
    assert.equal(tree.node_executions[0]!.attempt_count, 1);
  });

  test('run with an Idempotency-Key starts one request however often it is retried', async () => {
    const v = await version([transform('a', '1')], []);
    const key = { 'Idempotency-Key': `run-${randomUUID()}` };
    const body = { workflow_version_id: v.id, entry_node_ids: v.entry_node_ids };
    const first = await api('POST', '/v1/workflow-requests/run', body, key);
    const second = await api('POST', '/v1/workflow-requests/run', body, key);
    assert.equal(second.headers.get('idempotency-replayed'), 'true');
    assert.equal(second.body.workflow_request_id, first.body.workflow_request_id);
  });

  test('history is newest first, filterable and paged; foreign and malformed ids are 404', async () => {
    const v = await version([transform('a', '1')], []);
    const ids = [await run(v), await run(v), await run(v)];
    for (const id of ids) await settled(id);
    // The history index is eventually consistent; wait until it shows all three.
    const page = await vi.waitFor(
      async () => {
        const listed: { workflow_requests: Array<{ id: string }>; next_cursor: string | null; has_more: boolean } = (
          await api(
            'GET',
            `/v1/workflow-requests?limit=2&status=completed&workflow_id=${(await api('GET', `/v1/workflow-requests/${ids[0]}`)).body.workflow_id}`,
          )
        ).body;
        assert.ok(listed.has_more, `the history index shows all three: ${JSON.stringify(listed)}`);
        return listed;
      },
      { timeout: 10_000, interval: 100 },
    );
    assert.deepEqual(
      page.workflow_requests.map((r) => r.id),
      [ids[2], ids[1]],
    );
    const workflowId = (await api('GET', `/v1/workflow-requests/${ids[0]}`)).body.workflow_id;
    const next = await api('GET', `/v1/workflow-requests?limit=2&status=completed&workflow_id=${workflowId}&cursor=${encodeURIComponent(page.next_cursor!)}`);
    assert.deepEqual(
      next.body.workflow_requests.map((r: { id: string }) => r.id),
      [ids[0]],
    );
    const mismatch = await api('GET', `/v1/workflow-requests?limit=2&status=failed&cursor=${encodeURIComponent(page.next_cursor!)}`);
    assert.equal(mismatch.body.code, 'cursor_filter_mismatch');
    assert.equal((await api('GET', '/v1/workflow-requests?status=done')).status, 400);
    const other = await signedUpUser(stack);
    const foreign = await fetch(`${stack.url}/v1/workflow-requests/${ids[0]}`, { headers: { ...bearer(other.token), 'X-Request-Id': 'x' } });
    const malformed = await fetch(`${stack.url}/v1/workflow-requests/nope`, { headers: { ...bearer(other.token), 'X-Request-Id': 'x' } });
    assert.equal(foreign.status, 404);
    assert.deepEqual(await foreign.json(), await malformed.json());
  });
});

describe('how deep a request’s JSON may nest', () => {
  const nested = (levels: number): Record<string, unknown> => {
    let value: Record<string, unknown> = { n: 1 };
    for (let i = 1; i < levels; i++) value = { a: value };
    return value;
  };
  const tooDeep = (answer: { status: number; body: { code: string; errors: Array<Record<string, string>> } }, name: string) => {
    assert.equal(answer.status, 422, JSON.stringify(answer.body));
    assert.equal(answer.body.code, 'validation_failed');
    assert.deepEqual(
      answer.body.errors.map((e) => [e.name, e.location, e.code]),
      [[name, 'body', 'too_deep']],
    );
  };
  const raw = async (path: string, text: string) => {
    const response = await fetch(`${stack.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...bearer(user.token) }, body: text });
    return { status: response.status, body: (await response.json()) as Awaited<ReturnType<typeof api>>['body'] };
  };

  test('payload and metadata: at the bound the request runs to its end, one past is 422 naming the field, thousands deep a 422 too', async () => {
    const a = transform('a', '$');
    const v = await version([a], []);
    const start = { workflow_version_id: v.id, entry_node_ids: v.entry_node_ids };
    tooDeep(await api('POST', '/v1/workflow-requests/run', { ...start, payload: nested(JSON_MAX_DEPTH + 1) }), '/payload');
    tooDeep(await api('POST', '/v1/workflow-requests/run', { ...start, metadata: nested(JSON_MAX_DEPTH + 1) }), '/metadata');
    tooDeep(await api('POST', '/v1/workflow-requests/run', { ...start, payload: nested(31) }), '/payload');
    const absurd = `{"workflow_version_id":"${v.id}","entry_node_ids":${JSON.stringify(v.entry_node_ids)},"payload":${'['.repeat(4000)}${']'.repeat(4000)}}`;
    tooDeep(await raw('/v1/workflow-requests/run', absurd), '/payload');

    const id = await run(v, nested(JSON_MAX_DEPTH), { metadata: nested(JSON_MAX_DEPTH) });
    const tree = await settled(id);
    assert.equal(tree.workflow_request.status, 'completed', JSON.stringify(tree.workflow_request.error));
    assert.deepEqual(tree.node_executions[0]!.output_data, nested(JSON_MAX_DEPTH));
    assert.deepEqual((await api('GET', `/v1/workflow-requests/${id}`)).body.metadata, nested(JSON_MAX_DEPTH));
  });

  test('a node output deeper than the engine can store and wrap fails its node at once (output_too_deep) instead of every delivery', async () => {
    const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
    const fits = await settled(await run(await version([transform('fits', deep(MAX_OUTPUT_DEPTH))], [])));
    assert.equal(fits.workflow_request.status, 'completed', JSON.stringify(fits.workflow_request.error));
    const tree = await settled(await run(await version([transform('deep', deep(MAX_OUTPUT_DEPTH + 1))], [])));
    assert.equal(tree.workflow_request.status, 'failed');
    assert.equal(tree.node_executions[0]!.error?.code, 'output_too_deep');
    assert.equal(tree.node_executions[0]!.attempt_count, 1);
  });

  test('a node config: at the bound the version is stored, one past is 422 naming the config', async () => {
    const workflow = await api('POST', '/v1/workflows', { name: `wf-${randomUUID()}` });
    const path = `/v1/workflows/${workflow.body.id}/versions`;
    const http = (body: unknown) => ({ definition: { nodes: [{ name: 'h', type: 'http', config: { method: 'POST', url: 'https://example.com', body } }] } });
    const stored = await api('POST', path, http(nested(JSON_MAX_DEPTH - 1)));
    assert.equal(stored.status, 201, JSON.stringify(stored.body));
    assert.deepEqual(stored.body.definition.nodes[0].config.body, nested(JSON_MAX_DEPTH - 1));
    tooDeep(await api('POST', path, http(nested(JSON_MAX_DEPTH))), '/definition/nodes/0/config');
    tooDeep(await raw(path, JSON.stringify(http({})).replace('{}', `${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`)), '/definition');
  });
});
