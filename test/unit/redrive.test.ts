import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { RequestNotRedrivableError } from '#execution/errors.js';
import { processNodeTask } from '#execution/executor.js';
import { finishRequest } from '#execution/finish.js';
import { type NodeExecution, type RedriveBase, redriveFields, type WorkflowRequest } from '#execution/model.js';
import type { NodeTask } from '#execution/node-queue.js';
import { redriveForCaller, redrivenExecutionId, redriveRequest, redriveTasks } from '#execution/redrive.js';
import { startRequest } from '#execution/start.js';
import { Failure } from '#platform/failure.js';
import type { WorkflowDefinition } from '#workflows/index.js';
import { definitionOf, fakeEngine } from '../helpers/fake-engine.js';

type Engine = ReturnType<typeof fakeEngine>;
const LONG = () => 60_000;

/**
 * The fake engine with the redrive's writes, under the table's conditions:
 * a node replaced only while it is the execution read, the request moved
 * back only while ended after as many redrives as read.
 */
function redrivable(engine: Engine) {
  const { store } = engine;
  const kept: Array<{ redrive: number; node: NodeExecution }> = [];
  const starts: Array<{ requestId: string; redrive: number; base: RedriveBase; concurrencyLimit: number | undefined }> = [];
  const repo = engine.deps.requests as unknown as Record<string, unknown>;
  repo.keepRedriven = async (_requestId: string, redrive: number, nodes: NodeExecution[]) => {
    for (const node of nodes) kept.push({ redrive, node: structuredClone(node) });
  };
  repo.replaceNode = async (requestId: string, current: NodeExecution, next: NodeExecution) => {
    const found = store.node(requestId, next.node_id);
    if (current.unwritten ? found : !found || found.id !== current.id || found.status !== current.status) return false;
    const { unwritten: _, ...item } = structuredClone(next);
    store.nodes.set(`${requestId}/${next.node_id}`, item);
    return true;
  };
  repo.startRedrive = async (request: WorkflowRequest, redrive: number, base: RedriveBase, at: string, concurrencyLimit?: number) => {
    const stored = store.requests.get(request.id);
    if (!stored || !['failed', 'stopped'].includes(stored.status) || (stored.redrive_count ?? 0) !== redrive - 1) return false;
    Object.assign(stored, redriveFields(stored, redrive, base, at));
    starts.push({ requestId: request.id, redrive, base, concurrencyLimit });
    return true;
  };
  return { kept, starts };
}

/** Runs every queued task (and those they queue) until the queue is empty. */
async function drain(engine: Engine): Promise<void> {
  for (let i = 0; i < 100 && engine.queued.length > 0; i++) {
    const { tasks } = engine.queued.shift()!;
    for (const task of tasks) await processNodeTask(task, engine.deps, LONG);
  }
  assert.equal(engine.queued.length, 0, 'the queue drains');
}

const statuses = (engine: Engine, requestId: string) => Object.fromEntries(engine.store.nodesOf(requestId).map((n) => [n.node_id, n.status]));
const request = (engine: Engine, id: string) => engine.store.requests.get(id)!;

/**
 * A five-node chain a → b → c → d → e of transforms; `c` has a retry
 * policy (so it is claimed and run from the queue, as an http node is) and
 * fails while `broken.c` is set. Each node's runs are counted.
 */
function chain(maxAttempts = 1) {
  const broken = { c: true };
  const runs: Record<string, number> = {};
  const engine = fakeEngine(
    definitionOf(
      [
        ['a', 'transform'],
        ['b', 'transform'],
        ['c', 'transform', { retry: { max_attempts: maxAttempts, backoff_ms: 0 } }],
        ['d', 'transform'],
        ['e', 'transform'],
      ],
      [
        ['a', 'b'],
        ['b', 'c'],
        ['c', 'd'],
        ['d', 'e'],
      ],
    ),
    {
      transform: async ({ node, input }) => {
        runs[node.id] = (runs[node.id] ?? 0) + 1;
        if (node.id === 'c' && broken.c) throw new Failure('http_error', 'The server answered 500.');
        const fromParents = Object.values(input).map((v) => (v as { n?: number } | null)?.n ?? 0);
        return { n: Math.max(0, ...fromParents) + 1 };
      },
    },
  );
  return { engine, broken, runs, writes: redrivable(engine) };
}

async function failedChain(maxAttempts = 1) {
  const fixture = chain(maxAttempts);
  const started = await startRequest(fixture.engine.deps, 'acct', { workflow_version_id: fixture.engine.version.id, entry_node_ids: ['a'] });
  await drain(fixture.engine);
  assert.equal(request(fixture.engine, started.id).status, 'failed');
  return { ...fixture, id: started.id };
}

describe('redrive', () => {
  test('runs the failed node and those it stopped again, as new executions; completed nodes keep their executions and are not run again', async () => {
    // Prepare
    const { engine, broken, runs, writes, id } = await failedChain();
    assert.deepEqual(statuses(engine, id), { a: 'completed', b: 'completed', c: 'failed', d: 'stopped', e: 'stopped' });
    const before = new Map(engine.store.nodesOf(id).map((n) => [n.node_id, structuredClone(n)]));
    broken.c = false;

    // Act
    const redriven = await redriveRequest(engine.deps, request(engine, id));

    // Assert: back in progress, the replaced executions kept, the new ones waiting.
    assert.equal(redriven.status, 'in_progress');
    assert.equal(redriven.redrive_count, 1);
    assert.equal(request(engine, id).status, 'in_progress');
    assert.deepEqual(statuses(engine, id), { a: 'completed', b: 'completed', c: 'blocked', d: 'blocked', e: 'blocked' });
    assert.deepEqual(
      writes.kept.map((k) => [k.redrive, k.node.node_id, k.node.id, k.node.status]),
      ['c', 'd', 'e'].map((n) => [1, n, before.get(n)!.id, before.get(n)!.status]),
    );
    for (const n of ['c', 'd', 'e']) assert.equal(engine.store.node(id, n)?.id, redrivenExecutionId(id, n, 1));
    // What sets it going: b's propagation replayed (b itself is not run again).
    assert.deepEqual(
      engine.queued.flatMap((q) => q.tasks),
      [{ request_id: id, node_id: 'b' }],
    );

    await drain(engine);

    assert.equal(request(engine, id).status, 'completed');
    assert.deepEqual(statuses(engine, id), { a: 'completed', b: 'completed', c: 'completed', d: 'completed', e: 'completed' });
    assert.deepEqual(runs, { a: 1, b: 1, c: 2, d: 1, e: 1 }, 'a and b ran once; c once more; d and e for the first time');
    for (const n of ['a', 'b']) assert.deepEqual(engine.store.node(id, n), before.get(n), `${n} keeps its execution and output`);
    assert.deepEqual(engine.store.node(id, 'e')?.output_data, { n: 5 });
    // The live log: the request back in progress, then the new executions, and the new end last.
    const logged = engine.store.events.filter((e) => e.requestId === id).map((e) => e.data);
    const redriveAt = logged.findIndex((d) => d.workflow_request?.status === 'in_progress' && d.workflow_request.redrive_count === 1);
    assert.ok(redriveAt > 0);
    assert.deepEqual(logged.at(-1)?.workflow_request?.status, 'completed');
    assert.equal(logged.at(-1)?.workflow_request?.redrive_count, 1);
    const after = logged.slice(redriveAt + 1).flatMap((d) => (d.node_execution ? [d.node_execution] : []));
    assert.deepEqual([...new Set(after.map((n) => n.node_id))], ['c', 'd', 'e']);
    for (const n of after) assert.equal(n.id, redrivenExecutionId(id, String(n.node_id), 1), 'told as the new execution');
  });

  test('a pure node that failed runs again as its new execution, its children too (their items are read, not built afresh)', async () => {
    // Prepare: a → b → c, all pure (inline); b fails at first.
    const broken = { b: true };
    const engine = fakeEngine(
      definitionOf(
        [
          ['a', 'transform'],
          ['b', 'transform'],
          ['c', 'transform'],
        ],
        [
          ['a', 'b'],
          ['b', 'c'],
        ],
      ),
      {
        transform: async ({ node }) => {
          if (node.id === 'b' && broken.b) throw new Failure('bad_input', 'Not yet.');
          return { n: 1 };
        },
      },
    );
    redrivable(engine);
    const started = await startRequest(engine.deps, 'acct', { workflow_version_id: engine.version.id, entry_node_ids: ['a'] });
    await drain(engine);
    assert.deepEqual(statuses(engine, started.id), { a: 'completed', b: 'failed', c: 'stopped' });
    broken.b = false;

    // Act
    await redriveRequest(engine.deps, request(engine, started.id));
    await drain(engine);

    // Assert
    assert.equal(request(engine, started.id).status, 'completed');
    for (const n of ['b', 'c']) {
      const node = engine.store.node(started.id, n)!;
      assert.equal(node.status, 'completed');
      assert.equal(node.id, redrivenExecutionId(started.id, n, 1));
    }
    assert.equal(engine.store.node(started.id, 'b')?.attempt_count, 2);
    const told = engine.store.events.filter((e) => e.data.node_execution?.status === 'completed' && e.data.node_execution.node_id === 'c');
    assert.deepEqual(
      told.map((e) => e.data.node_execution?.id),
      [redrivenExecutionId(started.id, 'c', 1)],
    );
  });

  test('attempt counts go on from the failed execution, and its retry policy applies afresh', async () => {
    // Prepare: c may try twice, and fails both times.
    const { engine, runs, id } = await failedChain(2);
    assert.equal(engine.store.node(id, 'c')?.attempt_count, 2);

    // Act: redriven while still broken.
    await redriveRequest(engine.deps, request(engine, id));
    await drain(engine);

    // Assert: two more attempts (3 and 4), then failed again; a and b untouched.
    const c = engine.store.node(id, 'c')!;
    assert.equal(c.status, 'failed');
    assert.equal(c.attempt_count, 4);
    assert.equal(c.attempts_before, 2);
    assert.equal(runs.c, 4);
    assert.deepEqual([runs.a, runs.b], [1, 1]);
    assert.equal(request(engine, id).status, 'failed');
  });

  test('a request redriven twice: each redrive makes new executions, and the second starts from the first’s end', async () => {
    const { engine, broken, writes, id } = await failedChain();
    await redriveRequest(engine.deps, request(engine, id));
    await drain(engine);
    assert.equal(request(engine, id).status, 'failed');
    broken.c = false;

    const second = await redriveRequest(engine.deps, request(engine, id));
    await drain(engine);

    assert.equal(second.redrive_count, 2);
    assert.equal(request(engine, id).status, 'completed');
    assert.equal(engine.store.node(id, 'c')?.id, redrivenExecutionId(id, 'c', 2));
    assert.deepEqual(
      writes.kept.filter((k) => k.redrive === 2).map((k) => k.node.id),
      ['c', 'd', 'e'].map((n) => redrivenExecutionId(id, n, 1)),
    );
  });

  test('skipped nodes are kept; a stopped request whose nodes all settled ends completed again with nothing run', async () => {
    // Prepare: a condition whose branch to b is not taken; stopped after everything settled.
    const engine = fakeEngine(
      definitionOf(
        [
          ['a', 'condition'],
          ['b', 'transform'],
          ['c', 'transform'],
        ],
        [
          ['a', 'b', 'false'],
          ['a', 'c'],
        ],
      ),
    );
    redrivable(engine);
    const started = await startRequest(engine.deps, 'acct', { workflow_version_id: engine.version.id, entry_node_ids: ['a'] });
    await drain(engine);
    const stored = request(engine, started.id);
    assert.equal(stored.status, 'completed');
    stored.status = 'stopped';

    // Act
    await redriveRequest(engine.deps, stored);
    await drain(engine);

    // Assert
    assert.deepEqual(statuses(engine, started.id), { a: 'completed', b: 'skipped', c: 'completed' });
    assert.equal(request(engine, started.id).status, 'completed');
  });

  test('a request that is not failed or stopped is refused 409 request_not_redrivable, with nothing written', async () => {
    for (const status of ['pending', 'in_progress', 'waiting', 'completed'] as const) {
      const { engine, writes, id } = await failedChain();
      request(engine, id).status = status;
      const admitted: string[] = [];
      const usage = { admit: async (accountId: string) => void admitted.push(accountId) };

      await assert.rejects(
        redriveForCaller(engine.deps, usage, request(engine, id), { concurrency: 10 }),
        (error: RequestNotRedrivableError) => error.code === 'request_not_redrivable' && error.kind === 'conflict',
      );
      assert.deepEqual(writes.kept, [], status);
      assert.deepEqual(admitted, [], 'refused before the usage check');
      assert.equal(engine.store.node(id, 'c')?.status, 'failed');
    }
  });

  test('the caller’s redrive is checked as a creation is (usage, then the slot of work in progress); a refusal writes nothing', async () => {
    const { engine, writes, id } = await failedChain();
    const full = Object.assign(new Error('usage window full'), { name: 'UsageWindowExceededError' });

    await assert.rejects(redriveForCaller(engine.deps, { admit: async () => Promise.reject(full) }, request(engine, id), { concurrency: 3 }), full);
    assert.equal(request(engine, id).status, 'failed');
    assert.equal(writes.starts.length, 0);

    await redriveForCaller(engine.deps, { admit: async () => undefined }, request(engine, id), { concurrency: 3 });
    assert.deepEqual(
      writes.starts.map((s) => [s.redrive, s.concurrencyLimit, s.base.node_count]),
      [[1, 3, 3]],
      'a root request takes a slot again; its next end counts the three executions that run again',
    );
  });

  test('two redrives at once: one moves the request, the other is refused 409; the nodes are replaced once', async () => {
    const { engine, broken, runs, id } = await failedChain();
    broken.c = false;
    const read = request(engine, id);

    const answers = await Promise.allSettled([redriveRequest(engine.deps, structuredClone(read)), redriveRequest(engine.deps, structuredClone(read))]);
    await drain(engine);

    assert.deepEqual(answers.map((a) => a.status).sort(), ['fulfilled', 'rejected']);
    const refused = answers.find((a) => a.status === 'rejected') as PromiseRejectedResult;
    assert.ok(refused.reason instanceof RequestNotRedrivableError);
    assert.equal(request(engine, id).redrive_count, 1);
    assert.equal(request(engine, id).status, 'completed');
    assert.deepEqual(runs, { a: 1, b: 1, c: 2, d: 1, e: 1 }, 'each node ran again once');
  });

  test('a redrive racing a stop: stopped after it, the request ends stopped with every node settled; stopped before it, the stop changed nothing', async () => {
    // The stop comes after the redrive moved the request back.
    const first = await failedChain();
    first.broken.c = false;
    await redriveRequest(first.engine.deps, request(first.engine, first.id));
    const stopped = await finishRequest(first.engine.deps, first.id, 'stopped', null);
    await drain(first.engine);
    assert.equal(stopped?.status, 'stopped');
    assert.equal(request(first.engine, first.id).status, 'stopped');
    assert.deepEqual(statuses(first.engine, first.id), { a: 'completed', b: 'completed', c: 'stopped', d: 'stopped', e: 'stopped' });
    assert.equal(first.runs.c, 1, 'nothing ran after the stop');

    // The stop lands between the redrive's new executions and its move of the request: the request is still failed, so the stop is a no-op and leaves them.
    const second = await failedChain();
    second.broken.c = false;
    const replace = (second.engine.deps.requests as unknown as { startRedrive: (...args: unknown[]) => Promise<boolean> }).startRedrive;
    let stopAnswer: WorkflowRequest | undefined;
    (second.engine.deps.requests as unknown as { startRedrive: unknown }).startRedrive = async (...args: unknown[]) => {
      stopAnswer = await finishRequest(second.engine.deps, second.id, 'stopped', null);
      return replace(...args);
    };
    const redriven = await redriveRequest(second.engine.deps, request(second.engine, second.id));
    await drain(second.engine);
    assert.equal(stopAnswer, undefined, 'the stop found the request ended and changed nothing');
    assert.equal(redriven.status, 'in_progress');
    assert.equal(request(second.engine, second.id).status, 'completed');
  });

  test('a task of the first run arriving while the redrive has not moved the request yet leaves the new execution alone', async () => {
    const { engine, id } = await failedChain();
    const stale: NodeTask = { request_id: id, node_id: 'c', node_type: 'transform' };
    (engine.deps.requests as unknown as { startRedrive: unknown }).startRedrive = async () => {
      await processNodeTask(stale, engine.deps, LONG);
      return false;
    };

    await assert.rejects(redriveRequest(engine.deps, request(engine, id)), RequestNotRedrivableError);

    assert.equal(engine.store.node(id, 'c')?.status, 'blocked', 'not stopped by the stale task');
  });

  test('the tasks that set a redrive going: entry nodes that run again, and each kept parent of a node that runs again', () => {
    const definition = definitionOf(
      [
        ['a', 'transform'],
        ['b', 'transform'],
        ['c', 'transform'],
        ['d', 'transform'],
      ],
      [
        ['a', 'c'],
        ['b', 'c'],
        ['c', 'd'],
      ],
    );
    const graph = {
      nodes: new Map(definition.nodes.map((n) => [n.id, n])),
      parents: new Map([
        ['a', []],
        ['b', []],
        ['c', ['a', 'b']],
        ['d', ['c']],
      ]),
      children: new Map(),
    };
    const node = (node_id: string) => ({ node_id, node_type: 'transform' }) as NodeExecution;
    const request = { id: 'r', entry_node_ids: ['a', 'b'] } as WorkflowRequest;

    const tasks = redriveTasks(request, graph as never, [node('a')], [node('b'), node('c'), node('d')]);

    assert.deepEqual(tasks, [
      { request_id: 'r', node_id: 'b', node_type: 'transform' },
      { request_id: 'r', node_id: 'a' },
    ]);
  });
});

describe('redrive of a request with a child workflow', () => {
  test('a workflow node whose child failed redrives that child with it: the child’s completed nodes are not run again', async () => {
    // Prepare: parent p1 → w (workflow: child c1 → c2) → p3; c2 fails at first.
    const broken = { c2: true };
    const runs: Record<string, number> = {};
    const childDefinition = definitionOf(
      [
        ['c1', 'transform'],
        ['c2', 'transform'],
      ],
      [['c1', 'c2']],
    );
    const engine = fakeEngine(
      definitionOf(
        [
          ['p1', 'transform'],
          ['w', 'workflow'],
          ['p3', 'transform'],
        ],
        [],
      ),
      {
        transform: async ({ node, input }) => {
          runs[node.id] = (runs[node.id] ?? 0) + 1;
          if (node.id === 'c2' && broken.c2) throw new Failure('http_error', 'The server answered 500.');
          return { n: Object.keys(input).length };
        },
      },
    );
    const child = { id: '11111111-2222-4333-8444-555555555555', workflow_id: 'w2', definition: childDefinition, entry_node_ids: ['c1'] };
    const parentDefinition = definitionOf(
      [
        ['p1', 'transform'],
        ['w', 'workflow', { config: { workflow_version_id: child.id } }],
        ['p3', 'transform'],
      ],
      [
        ['p1', 'w'],
        ['w', 'p3'],
      ],
    ) as WorkflowDefinition;
    engine.version.definition = parentDefinition;
    engine.version.entry_node_ids = ['p1'];
    const parentVersion = engine.version;
    engine.deps.versions = { getVersion: async (_account, id) => (id === parentVersion.id ? parentVersion : id === child.id ? child : undefined) };
    redrivable(engine);
    const started = await startRequest(engine.deps, 'acct', { workflow_version_id: parentVersion.id, entry_node_ids: ['p1'] });
    await drain(engine);
    const w = engine.store.node(started.id, 'w')!;
    const childId = w.child_request_id!;
    assert.equal(request(engine, started.id).status, 'failed');
    assert.equal(request(engine, childId).status, 'failed');
    assert.equal(w.error?.code, 'child_workflow_failed');
    broken.c2 = false;

    // Act
    await redriveRequest(engine.deps, request(engine, started.id));
    await drain(engine);

    // Assert
    assert.equal(request(engine, started.id).status, 'completed');
    assert.equal(request(engine, childId).status, 'completed');
    assert.equal(request(engine, childId).redrive_count, 1, 'the same child, redriven');
    assert.equal(engine.store.node(started.id, 'w')?.child_request_id, childId);
    assert.deepEqual(engine.store.node(started.id, 'w')?.output_data, { workflow_request_id: childId, outputs: { c2: { n: 1 } } });
    assert.deepEqual(runs, { p1: 1, c1: 1, c2: 2, p3: 1 });
  });

  test('a child request is not redriven on its own: 409, its parent’s node redrives it', async () => {
    const { engine, id } = await failedChain();
    const stored = request(engine, id);
    stored.parent_workflow_request_id = '99999999-2222-4333-8444-555555555555';

    await assert.rejects(redriveForCaller(engine.deps, { admit: async () => undefined }, stored, { concurrency: 3 }), RequestNotRedrivableError);
  });
});
