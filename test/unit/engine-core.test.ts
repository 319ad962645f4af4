import assert from 'node:assert/strict';
import { afterEach, describe, test, vi } from 'vitest';
import { interactionIdFor } from '#execution/approval.js';
import { processNodeTask } from '#execution/executor.js';
import { failDeadLetteredTask, finishRequest } from '#execution/finish.js';
import { LATE_FLUSH_MS } from '#execution/late-flush.js';
import { startRequest } from '#execution/start.js';
import { ValidationError } from '#platform/errors.js';
import { Failure } from '#platform/failure.js';
import { definitionOf, fakeEngine, transforms } from '../helpers/fake-engine.js';
import { publishedCounts, recordMetrics } from '../helpers/metrics.js';

type Engine = ReturnType<typeof fakeEngine>;
const LONG = () => 60_000;
const statuses = (engine: Engine, requestId: string) => Object.fromEntries(engine.store.nodesOf(requestId).map((n) => [n.node_id, n.status]));
const run = (engine: Engine, input: Record<string, unknown> = {}) =>
  startRequest(engine.deps, 'acct', { workflow_version_id: engine.version.id, entry_node_ids: engine.version.entry_node_ids, payload: input });
/** One delivery of the node's task; `remaining` is the invocation's time left. */
const step = (engine: Engine, requestId: string, nodeId: string, remaining = LONG) =>
  processNodeTask({ request_id: requestId, node_id: nodeId }, engine.deps, remaining);
const queuedIds = (engine: Engine) => engine.queued.flatMap((q) => q.tasks.map((t) => t.node_id));

describe('start', () => {
  test('creates the request and every node (entries pending, the rest blocked with their parent count), then queues the entries', async () => {
    // Prepare
    const engine = fakeEngine(
      definitionOf(transforms('a', 'b', 'c'), [
        ['a', 'c'],
        ['b', 'c'],
      ]),
    );
    // Act
    const request = await run(engine);
    // Assert
    assert.equal(engine.store.requests.get(request.id)?.status, 'pending');
    assert.deepEqual(statuses(engine, request.id), { a: 'pending', b: 'pending', c: 'blocked' });
    assert.equal(engine.store.nodesOf(request.id).find((n) => n.node_id === 'c')?.parent_count, 2);
    assert.deepEqual(queuedIds(engine).sort(), ['a', 'b']);
    // Only the entry nodes are written now; c is written by the first change that reaches it.
    assert.equal(engine.store.node(request.id, 'c'), undefined);
  });

  test('an unknown version, a non-entry node or an unknown chat is refused before anything is written', async () => {
    const engine = fakeEngine(definitionOf(transforms('a', 'b'), [['a', 'b']]));
    await assert.rejects(startRequest(engine.deps, 'acct', { workflow_version_id: 'nope', entry_node_ids: ['a'] }), ValidationError);
    await assert.rejects(
      startRequest(engine.deps, 'acct', { workflow_version_id: engine.version.id, entry_node_ids: ['b'], chat_id: 'chat-9' }),
      (error: ValidationError) => error.options.errors?.map((e) => e.name).join() === '/entry_node_ids/0,/chat_id',
    );
    assert.equal(engine.store.calls.create, undefined);
    assert.equal(engine.queued.length, 0);
  });
});

describe('run and propagate', () => {
  test('a pure chain runs inline in one invocation: each node settled once, the request completed, events appended in one flush', async () => {
    const engine = fakeEngine(
      definitionOf(transforms('a', 'b', 'c'), [
        ['a', 'b'],
        ['b', 'c'],
      ]),
    );
    const request = await run(engine, { n: 1 });
    engine.queued.length = 0;

    await step(engine, request.id, 'a');

    assert.deepEqual(statuses(engine, request.id), { a: 'completed', b: 'completed', c: 'completed' });
    assert.deepEqual(engine.store.node(request.id, 'c')?.output_data, { n: 4 });
    assert.equal(engine.store.requests.get(request.id)?.status, 'completed');
    assert.equal(engine.store.calls.settleNode, 3);
    assert.equal(engine.store.calls.appendEvents, 1, 'one flush per invocation');
    assert.equal(engine.queued.length, 0, 'nothing went through the queue');
  });

  test('a redelivered task changes nothing: no settle succeeds twice, no event is added', async () => {
    const engine = fakeEngine(definitionOf(transforms('a', 'b'), [['a', 'b']]));
    const request = await run(engine);
    await step(engine, request.id, 'a');
    const events = engine.store.events.length;

    await step(engine, request.id, 'a');

    assert.equal(engine.store.events.length, events);
    assert.equal(engine.store.requests.get(request.id)?.status, 'completed');
  });

  test('a task redelivered after its request ended announces the end to the webhooks again (the same event id); a task of a node the end stopped does not', async () => {
    const engine = fakeEngine(definitionOf(transforms('a', 'b'), [['a', 'b']]));
    const announced: Array<{ id: string; type: string }> = [];
    engine.deps.webhooks = { listening: async () => true, announce: async (_account, event) => void announced.push(event) };
    const done = await run(engine);
    await step(engine, done.id, 'a');
    assert.equal(engine.store.requests.get(done.id)?.status, 'completed');
    assert.equal(announced.length, 1);

    await step(engine, done.id, 'a');

    assert.deepEqual(
      announced.map((e) => e.type),
      ['workflow_request.completed', 'workflow_request.completed'],
    );
    assert.equal(announced[1]?.id, announced[0]?.id, 'the same event: its deliveries keep their webhook-id');

    const stopped = await run(engine);
    await finishRequest(engine.deps, stopped.id, 'stopped', null);
    announced.length = 0;
    await step(engine, stopped.id, 'a');
    assert.deepEqual(announced, [], 'a node the end stopped');
  });

  test('near the deadline a ready child is queued instead of run inline', async () => {
    const engine = fakeEngine(definitionOf(transforms('a', 'b'), [['a', 'b']]));
    const request = await run(engine);
    engine.queued.length = 0;

    await step(engine, request.id, 'a', () => 5_000);

    // No write for b: the task says it is ready, and the events went out first so it knows where the log goes on.
    assert.deepEqual(statuses(engine, request.id), { a: 'completed', b: 'blocked' });
    assert.deepEqual(queuedIds(engine), ['b']);
    const [task] = engine.queued[0]!.tasks;
    assert.equal(task!.ready, true);
    assert.equal(typeof task!.seq, 'number');
    // It carries its input (a's output, settled here), and b was not read: a's settling is the only way to reach it.
    assert.deepEqual(task!.input, { a: engine.store.node(request.id, 'a')!.output_data });
    assert.equal(engine.store.calls.getNode, 1, 'a itself only');
    assert.equal(engine.store.calls.transitionNode, undefined);

    // Its worker claims it straight from blocked; a task without `ready` would have left it alone.
    await processNodeTask({ request_id: request.id, node_id: 'b' }, engine.deps, LONG);
    assert.equal(engine.store.node(request.id, 'b'), undefined);
    const reads = engine.store.calls.getNode ?? 0;
    await processNodeTask(task!, engine.deps, LONG);
    assert.deepEqual(statuses(engine, request.id), { a: 'completed', b: 'completed' });
    assert.equal(engine.store.calls.getNode, reads + 1, 'b itself, not its parent');
    assert.deepEqual(engine.store.node(request.id, 'b')!.input_data, task!.input);
  });

  test('fan-in: the child waits for every parent, its marks are written once per invocation', async () => {
    const engine = fakeEngine(
      definitionOf(transforms('a', 'b', 'c'), [
        ['a', 'c'],
        ['b', 'c'],
      ]),
    );
    const request = await run(engine);

    await step(engine, request.id, 'a');
    assert.equal(engine.store.node(request.id, 'c')?.status, 'blocked');
    assert.equal(engine.store.requests.get(request.id)?.status, 'in_progress');

    await step(engine, request.id, 'b');
    assert.equal(engine.store.node(request.id, 'c')?.status, 'completed');
    assert.equal(engine.store.calls.markParentsDone, 2);
    assert.equal(engine.store.requests.get(request.id)?.status, 'completed');
  });

  test('an edge not taken skips its child, which propagates; the request completes', async () => {
    const engine = fakeEngine(
      definitionOf(
        [
          ['a', 'condition'],
          ['yes', 'transform'],
          ['no', 'transform'],
          ['after', 'transform'],
        ],
        [
          ['a', 'yes', 'true'],
          ['a', 'no', 'false'],
          ['no', 'after'],
        ],
      ),
    );
    const request = await run(engine);

    await step(engine, request.id, 'a');

    assert.deepEqual(statuses(engine, request.id), { a: 'completed', yes: 'completed', no: 'skipped', after: 'skipped' });
    assert.equal(engine.store.requests.get(request.id)?.status, 'completed');
  });

  test('a node with a retry policy is claimed; a retryable failure puts it back with a delay, a final one fails the request', async () => {
    let calls = 0;
    const engine = fakeEngine(definitionOf([['a', 'transform', { retry: { max_attempts: 2, backoff_ms: 1000 } }]]), {
      transform: async () => {
        calls++;
        throw new Failure('http_5xx', 'upstream failed');
      },
    });
    const request = await run(engine);
    engine.queued.length = 0;

    await step(engine, request.id, 'a');
    assert.equal(engine.store.node(request.id, 'a')?.status, 'pending');
    assert.equal(engine.store.node(request.id, 'a')?.attempt_count, 1);
    assert.ok((engine.queued[0]?.delaySeconds ?? 0) > 0, 'requeued with a delay');

    await step(engine, request.id, 'a');
    assert.equal(calls, 2);
    assert.equal(engine.store.node(request.id, 'a')?.status, 'failed');
    assert.deepEqual(engine.store.requests.get(request.id)?.error, { code: 'http_5xx', message: 'upstream failed' });
    assert.equal(engine.store.requests.get(request.id)?.status, 'failed');
  });

  test('a node running under another delivery’s lease is left alone: the message comes back later', async () => {
    const engine = fakeEngine(definitionOf([['a', 'transform', { retry: { max_attempts: 2 } }]]));
    const request = await run(engine);
    Object.assign(engine.store.node(request.id, 'a')!, { status: 'in_progress', lease_expires_at: Date.now() + 60_000, attempt_count: 1 });

    await assert.rejects(step(engine, request.id, 'a'), { name: 'RetryLater' });
    assert.equal(engine.store.node(request.id, 'a')?.attempt_count, 1);
  });
});

describe('after an agent node', () => {
  test('a condition that follows it, and the branch its when edge takes, run in the agent’s invocation: no further queue hop', async () => {
    const engine = fakeEngine(
      definitionOf(
        [
          ['a', 'agent', { config: { model: 'local/echo' } }],
          ['c', 'condition'],
          ['yes', 'transform'],
          ['no', 'transform'],
        ],
        [
          ['a', 'c'],
          ['c', 'yes', 'true'],
          ['c', 'no', 'false'],
        ],
      ),
    );
    engine.deps.runtime.runners.agent = async () => ({ content: 'hi' });
    const request = await run(engine);
    engine.queued.length = 0;

    await step(engine, request.id, 'a');

    assert.deepEqual(statuses(engine, request.id), { a: 'completed', c: 'completed', yes: 'completed', no: 'skipped' });
    assert.equal(engine.store.requests.get(request.id)?.status, 'completed');
    assert.equal(engine.queued.length, 0);
  });
});

describe('events of a queued node', () => {
  const flushes = (engine: Engine) => engine.store.calls.appendEvents ?? 0;

  test('a node that finishes quickly has its start and its end written in one flush', async () => {
    const engine = fakeEngine(definitionOf([['a', 'transform', { retry: { max_attempts: 2 } }]]));
    const request = await run(engine);

    await step(engine, request.id, 'a');

    assert.equal(engine.store.node(request.id, 'a')?.status, 'completed');
    assert.equal(flushes(engine), 1);
    const statusesSent = engine.store.events.map((e) => e.data.node_execution?.status ?? e.data.workflow_request?.status);
    assert.deepEqual(statusesSent, ['in_progress', 'in_progress', 'completed', 'completed']);
  });

  test('a node still running after LATE_FLUSH_MS has its start written while it runs, its end after', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let finish!: () => void;
      const engine = fakeEngine(definitionOf([['a', 'transform', { retry: { max_attempts: 2 } }]]), {
        transform: () =>
          new Promise((resolve) => {
            finish = () => resolve({ done: true });
          }),
      });
      const request = await run(engine);

      const processing = step(engine, request.id, 'a');
      await vi.advanceTimersByTimeAsync(LATE_FLUSH_MS - 1);
      assert.equal(flushes(engine), 0);
      await vi.advanceTimersByTimeAsync(1);
      assert.equal(flushes(engine), 1, 'the claim’s events, while the node runs');
      finish();
      await processing;

      assert.equal(flushes(engine), 2);
      assert.equal(engine.store.node(request.id, 'a')?.status, 'completed');
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('finish', () => {
  test('stopping settles every open node as stopped before the request turns terminal; a waiting node’s interaction is cancelled', async () => {
    const engine = fakeEngine(
      definitionOf(
        [
          ['a', 'approval'],
          ['b', 'transform'],
        ],
        [['a', 'b']],
      ),
    );
    const request = await run(engine);
    const a = engine.store.node(request.id, 'a')!;
    a.status = 'waiting';

    const finished = await finishRequest(engine.deps, request.id, 'stopped', null);

    assert.equal(finished?.status, 'stopped');
    assert.deepEqual(statuses(engine, request.id), { a: 'stopped', b: 'stopped' });
    assert.deepEqual(engine.resolved, [{ id: interactionIdFor(a.id), status: 'cancelled' }]);
    const last = engine.store.events.at(-1)?.data;
    assert.equal(last?.workflow_request?.status, 'stopped', 'the terminal request event goes last');
    assert.equal(await finishRequest(engine.deps, request.id, 'completed', null), undefined, 'a terminal request stays as it is');
  });

  test('a dead-lettered task fails its node and its request with delivery_exhausted', async () => {
    const engine = fakeEngine(definitionOf([['a', 'transform']]));
    const request = await run(engine);

    await failDeadLetteredTask({ request_id: request.id, node_id: 'a' }, engine.deps);

    assert.equal(engine.store.node(request.id, 'a')?.error?.code, 'delivery_exhausted');
    assert.equal(engine.store.requests.get(request.id)?.status, 'failed');
  });

  test('the events a dead-lettered task carried (handed on by its sender) are logged before its node fails', async () => {
    const engine = fakeEngine(definitionOf([['a', 'transform']]));
    const request = await run(engine);
    const carried = { node_execution: { id: 'x-a', node_id: 'a', status: 'completed', attempt_count: 1 } };
    const before = engine.store.events.length;

    await failDeadLetteredTask({ request_id: request.id, node_id: 'a', seq: 2, events: { since: Date.now(), data: [carried] } }, engine.deps);

    const logged = engine.store.events.slice(before).map((e) => e.data);
    assert.deepEqual(logged[0], carried, 'the carried events come first');
    assert.equal(engine.store.requests.get(request.id)?.status, 'failed');
  });

  test('a dead-lettered ready task whose node was never written fails it all the same (its item is created failed)', async () => {
    const engine = fakeEngine(
      definitionOf(
        [
          ['a', 'transform'],
          ['b', 'http'],
        ],
        [['a', 'b']],
      ),
    );
    const request = await run(engine);
    assert.equal(engine.store.node(request.id, 'b'), undefined);

    await failDeadLetteredTask({ request_id: request.id, node_id: 'b', ready: true }, engine.deps);

    assert.equal(engine.store.node(request.id, 'b')?.status, 'failed');
    assert.equal(engine.store.node(request.id, 'b')?.error?.code, 'delivery_exhausted');
    assert.equal(engine.store.requests.get(request.id)?.status, 'failed');
  });
});

describe('metrics', () => {
  afterEach(() => vi.unstubAllEnvs());

  /** a → b, and x, an entry node the requests here do not start at (skipped by their creation). */
  const engineWithUnchosenEntry = () => {
    const engine = fakeEngine(definitionOf(transforms('a', 'b', 'x'), [['a', 'b']]));
    const start = () => startRequest(engine.deps, 'acct', { workflow_version_id: engine.version.id, entry_node_ids: ['a'] });
    return { engine, start };
  };

  test('a request counts its start, each node’s settle and its end once, though its task comes again and its end is asked again', async () => {
    recordMetrics();
    await publishedCounts();
    const { engine, start } = engineWithUnchosenEntry();
    const request = await start();

    await step(engine, request.id, 'a');
    await step(engine, request.id, 'a');
    await finishRequest(engine.deps, request.id, 'completed', null);

    assert.equal(engine.store.requests.get(request.id)?.status, 'completed');
    assert.deepEqual(await publishedCounts(), {
      WorkflowRequestsStarted: 1,
      'NodeExecutions status=skipped': 1,
      'NodeExecutions status=completed': 2,
      'WorkflowRequestsEnded status=completed': 1,
    });
  });

  test('a request stopped twice, then its task dead-lettered, counts its end and its stopped nodes once', async () => {
    recordMetrics();
    await publishedCounts();
    const { engine, start } = engineWithUnchosenEntry();
    const request = await start();

    await finishRequest(engine.deps, request.id, 'stopped', null);
    await finishRequest(engine.deps, request.id, 'stopped', null);
    await failDeadLetteredTask({ request_id: request.id, node_id: 'a' }, engine.deps);

    assert.deepEqual(await publishedCounts(), {
      WorkflowRequestsStarted: 1,
      'NodeExecutions status=skipped': 1,
      'NodeExecutions status=stopped': 2,
      'WorkflowRequestsEnded status=stopped': 1,
    });
  });
});
