import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, test, vi } from 'vitest';
import { QUEUES } from '#app/queues.js';
import { pageEvents } from '#events/pages.js';
import { LATE_FLUSH_MS } from '#execution/late-flush.js';
import type { RequestEvent } from '#execution/model.js';
import { NODE_TASKS_QUEUE } from '#execution/queues.js';
import { workflowRequests } from '#execution/workflow-requests.js';
import { logger } from '#platform/observability/logger.js';
import { keys } from '#platform/table/keys.js';
import { closeServer, listenLocally } from '../helpers/local-server.js';
import { CHAIN_OF_THREE_LOGGED } from '../helpers/queued-chain.js';
import { queuesDrained } from '../helpers/queues.js';
import { signedUpUser, startTestStack } from '../helpers/stack.js';
import { apiFor, createVersion, node, runVersion, settledTree, type TestNode, transform } from '../helpers/workflows.js';

/**
 * The queued path through the local stack: tasks claimed from what they
 * say, carrying their request and the request's events on; every event
 * logged once, however often a task comes, and within LATE_FLUSH_MS of
 * happening while the next node runs.
 */

// The handlers run in this process: the slow test server on 127.0.0.1 is reachable over plain http.
process.env.HTTP_NODE_ALLOWED_HOSTS = '127.0.0.1';
process.env.HTTP_NODE_ALLOW_INSECURE = 'true';

const SLOW_MS = 2_500;

let stack: Awaited<ReturnType<typeof startTestStack>>;
let user: Awaited<ReturnType<typeof signedUpUser>>;
let sqs: SQSClient;
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((_req, res) => {
    setTimeout(() => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"slow":true}');
    }, SLOW_MS);
  });
  base = await listenLocally(server);
  stack = await startTestStack({ queues: QUEUES.map((q) => ({ ...q, visibilityTimeoutSeconds: 2, workerTimeoutSeconds: 30, maxReceiveCount: 2 })) });
  user = await signedUpUser(stack);
  sqs = new SQSClient({ endpoint: stack.sqsEndpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
});
afterAll(async () => {
  sqs.destroy();
  await stack.stop();
  await closeServer(server);
});

const api = apiFor(
  () => stack.url,
  () => user.token,
);
const retry = { max_attempts: 2 };
const queued = (n: TestNode): TestNode => ({ ...n, retry });
const nodeTasksQueueUrl = () => stack.queues.find((q) => q.definition.name === NODE_TASKS_QUEUE)!.url;

/** The request's event log as stored: its pages and their events in seq order. */
async function logOf(requestId: string) {
  const { Items = [] } = await stack.table.db.send(
    new QueryCommand({
      TableName: stack.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :e)',
      ExpressionAttributeValues: { ':pk': keys.requestEvent(requestId, 0).pk, ':e': 'EVENT#' },
      ConsistentRead: true,
    }),
  );
  const events = Items.flatMap((page) => pageEvents<RequestEvent['data']>(page)).sort((a, b) => a.seq - b.seq);
  return { pages: Items.length, events, seqs: events.map((e) => e.seq), said: events.map((e) => said(e.data)) };
}

const names = new Map<string, string>();
const said = (data: RequestEvent['data']) =>
  data.node_execution ? `${names.get(String(data.node_execution.node_id))} ${data.node_execution.status}` : `request ${data.workflow_request?.status}`;

describe('the queued path', () => {
  test('a queued chain logs each state change once, in order, in one page; tasks delivered again with the events they carried log nothing more', async () => {
    // Prepare: a chain of three nodes with retry policies, so each is a claim, a queue hop and an invocation of its own.
    const [a, b, c] = ['a', 'b', 'c'].map((name) => queued(transform(name, `{"${name}": true}`))) as [TestNode, TestNode, TestNode];
    for (const n of [a, b, c]) names.set(n.id, n.name);
    const v = await createVersion(
      api,
      [a, b, c],
      [
        { from: a.id, to: b.id },
        { from: b.id, to: c.id },
      ],
    );
    // Act
    const id = await runVersion(api, v, {});
    const tree = await settledTree(api, id);
    await queuesDrained(stack);
    // Assert
    assert.equal(tree.workflow_request.status, 'completed');
    const log = await logOf(id);
    assert.deepEqual(log.said, [...CHAIN_OF_THREE_LOGGED]);
    assert.deepEqual(log.seqs, [1, 2, 3, 4, 5, 6, 7, 8]);
    assert.equal(log.pages, 1, 'the chain handed its events on to its last node, which logged them with its own');

    // Act: b's and c's tasks again, as a redelivered (or resent) parent would send them, with the events they carried.
    const request = await workflowRequests(stack.table).get(id);
    const copy = { ...request, status: 'in_progress', completed_at: null };
    const carried = (upTo: number) => ({ since: Date.now(), data: log.events.slice(0, upTo).map((e) => e.data) });
    for (const [n, upTo] of [
      [b, 3],
      [c, 5],
      [c, 5],
    ] as const) {
      const task = { request_id: id, node_id: n.id, node_type: 'transform', ready: true, seq: 1, events: carried(upTo), request: copy };
      await sqs.send(new SendMessageCommand({ QueueUrl: nodeTasksQueueUrl(), MessageBody: JSON.stringify(task) }));
    }
    await queuesDrained(stack);
    // Assert: nothing ran again, nothing was logged twice.
    const again = await settledTree(api, id);
    assert.deepEqual(again.node_executions, tree.node_executions);
    assert.deepEqual((await logOf(id)).said, log.said);
  });

  test('the events a task carries are logged within LATE_FLUSH_MS while its node runs long', async () => {
    // Prepare: a quick node, then an http node whose server answers after SLOW_MS.
    const quick = queued(transform('quick', '{"quick": true}'));
    const slow = queued(node('slow', 'http', { method: 'GET', url: `${base}/slow` }));
    for (const n of [quick, slow]) names.set(n.id, n.name);
    const v = await createVersion(api, [quick, slow], [{ from: quick.id, to: slow.id }]);
    // Act
    const id = await runVersion(api, v, {});
    // Assert: quick's end is logged while slow still runs, within LATE_FLUSH_MS (and a hop) of it.
    const loggedAt = await vi.waitFor(
      async () => {
        const { said: now } = await logOf(id);
        assert.ok(now.includes('quick completed'), JSON.stringify(now));
        return Date.now();
      },
      { timeout: SLOW_MS, interval: 20 },
    );
    const tree = await settledTree(api, id, 10_000);
    const endOf = (n: TestNode) =>
      Date.parse((tree.node_executions as unknown as Array<{ node_id: string; completed_at: string }>).find((e) => e.node_id === n.id)!.completed_at);
    assert.equal(tree.workflow_request.status, 'completed');
    assert.ok(loggedAt < endOf(slow), 'logged before the slow node ended');
    assert.ok(loggedAt - endOf(quick) < LATE_FLUSH_MS + 500, `logged ${loggedAt - endOf(quick)} ms after it happened`);
    assert.deepEqual((await logOf(id)).said, [
      'quick in_progress',
      'request in_progress',
      'quick completed',
      'slow in_progress',
      'slow completed',
      'request completed',
    ]);
  });
  // Last in the file: the malformed messages stay in the dead-letter queue, refused there too, so the queues never drain.
  test('a malformed message on a node queue is a batch item failure with one clear log line; the worker goes on with the rest', async () => {
    // Prepare
    // The tiers log at CRITICAL (vitest.config.ts); this test reads the error lines the workers write.
    logger().setLogLevel('ERROR');
    const lines: string[] = [];
    const spies = (['stdout', 'stderr'] as const).map((name) => {
      const stream = process[name];
      const write = stream.write.bind(stream) as (chunk: string | Uint8Array, ...rest: unknown[]) => boolean;
      return vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
        lines.push(String(chunk));
        return write(chunk, ...rest);
      });
    });
    const [a, b] = ['a', 'b'].map((name) => queued(transform(name, `{"${name}": true}`))) as [TestNode, TestNode];
    const version = await createVersion(api, [a, b], [{ from: a.id, to: b.id }]);
    try {
      // Act: a body that is not JSON and one that lacks request_id, then a real request through the same queue.
      const notJson = await sqs.send(new SendMessageCommand({ QueueUrl: nodeTasksQueueUrl(), MessageBody: 'not json {' }));
      const wrongShape = await sqs.send(
        new SendMessageCommand({ QueueUrl: nodeTasksQueueUrl(), MessageBody: JSON.stringify({ node_id: 'a', request_id: 7 }) }),
      );
      const id = await runVersion(api, version, {});
      const tree = await settledTree(api, id);
      // Assert
      assert.equal(tree.workflow_request.status, 'completed');
      await vi.waitFor(
        () => {
          const malformed = lines.filter((line) => line.includes('malformed queue message'));
          assert.ok(
            malformed.some((line) => line.includes(notJson.MessageId!) && line.includes('node task')),
            'the non-JSON body is named',
          );
          assert.ok(
            malformed.some((line) => line.includes(wrongShape.MessageId!) && line.includes('request_id')),
            'the failing field is named',
          );
          assert.ok(!malformed.some((line) => line.includes('not json {') && !line.includes('body_excerpt')), 'the body only as its excerpt');
        },
        { timeout: 10_000, interval: 100 },
      );
    } finally {
      for (const spy of spies) spy.mockRestore();
      logger().setLogLevel('CRITICAL');
    }
  });
});
