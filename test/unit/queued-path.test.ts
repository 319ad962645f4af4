import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterEach, describe, test, vi } from 'vitest';
import { EventBuffer, eventIdentity } from '#execution/emit.js';
import { processNodeTask } from '#execution/executor.js';
import { LATE_FLUSH_MS } from '#execution/late-flush.js';
import type { RequestEvent } from '#execution/model.js';
import type { NodeTask } from '#execution/node-queue.js';
import { startRequest } from '#execution/start.js';
import { workflowRequestsRepo } from '#execution/workflow-requests-repository.js';
import { NODE_EXECUTION_FEE_MICRO_USD } from '#platform/config/prices.js';
import type { Owed } from '#usage/index.js';
import { conditionFailed, mockedDynamoDb } from '../helpers/dynamodb-mock.js';
import { definitionOf, fakeEngine } from '../helpers/fake-engine.js';
import { CHAIN_OF_THREE_LOGGED } from '../helpers/queued-chain.js';

/**
 * The queued path (a claim, a queue hop and a worker invocation per node)
 * doing less per node: the claim made from what the task says, without
 * reading the node (the refusal sends the node back) or the request (the
 * task carries it); the request's events handed on to its next task and
 * logged once, within LATE_FLUSH_MS.
 */

type Engine = ReturnType<typeof fakeEngine>;
const LONG = () => 60_000;
const retrying = (...ids: string[]) => ids.map((id): [string, string, Record<string, unknown>] => [id, 'transform', { retry: { max_attempts: 2 } }]);
const chainOf = (...ids: string[]) =>
  definitionOf(
    retrying(...ids),
    ids.slice(1).map((id, i) => [ids[i]!, id]),
  );
const run = (engine: Engine) =>
  startRequest(engine.deps, 'acct', { workflow_version_id: engine.version.id, entry_node_ids: engine.version.entry_node_ids, payload: {} });
/** Takes the tasks queued so far (as the queue would deliver them). */
const takeQueued = (engine: Engine): NodeTask[] => engine.queued.splice(0).flatMap((q) => q.tasks);
const statusesLogged = (engine: Engine) =>
  engine.store.events.map((e) => `${e.data.node_execution?.node_id ?? 'request'} ${e.data.node_execution?.status ?? e.data.workflow_request?.status}`);

afterEach(() => {
  vi.useRealTimers();
});

describe('a queued chain', () => {
  test('every task is claimed without reading its node, only the first reads its request, and the events travel on: logged in one flush, in order, once', async () => {
    const engine = fakeEngine(chainOf('a', 'b', 'c'));
    const request = await run(engine);
    let invocations = 0;
    for (let tasks = takeQueued(engine); tasks.length > 0; tasks = takeQueued(engine)) {
      assert.equal(tasks.length, 1);
      invocations++;
      await processNodeTask(tasks[0]!, engine.deps, LONG);
    }
    assert.equal(invocations, 3);
    assert.equal(engine.store.requests.get(request.id)?.status, 'completed');
    assert.equal(engine.store.calls.getNode ?? 0, 0, 'no node read before a claim');
    assert.equal(engine.store.calls.get ?? 0, 1, 'the entry task reads the request; the others carry it');
    assert.equal(engine.store.calls.claimNode, 3);
    assert.equal(engine.store.calls.appendEvents, 1, 'one flush, at the end');
    assert.deepEqual(statusesLogged(engine), [...CHAIN_OF_THREE_LOGGED]);
  });

  test('a task delivered again after its node completed: the refused claim sends the node back, nothing runs twice, the request is read for what to do', async () => {
    const engine = fakeEngine(chainOf('a', 'b'));
    const request = await run(engine);
    await processNodeTask(takeQueued(engine)[0]!, engine.deps, LONG);
    const [taskB] = takeQueued(engine);
    await processNodeTask(taskB!, engine.deps, LONG);
    assert.equal(engine.store.requests.get(request.id)?.status, 'completed');
    const gets = engine.store.calls.get ?? 0;

    await processNodeTask(taskB!, engine.deps, LONG);

    assert.equal(engine.store.node(request.id, 'b')?.attempt_count, 1, 'claimed once');
    assert.equal(engine.store.calls.getNode ?? 0, 0, 'the refusal brought the node back');
    assert.equal((engine.store.calls.get ?? 0) - gets, 1, 'the carried request is not trusted past a refused claim');
    assert.deepEqual(takeQueued(engine), []);
  });

  test('the check before each node is told the request’s pending fees (one per other node at most) and, for a carried request, how to read its unpaid extra', async () => {
    const engine = fakeEngine(chainOf('a', 'b', 'c'));
    const owed: Owed[] = [];
    engine.deps.usage = {
      check: async (_account, o) => {
        owed.push(o);
        return undefined;
      },
    };
    const request = await run(engine);
    for (let tasks = takeQueued(engine); tasks.length > 0; tasks = takeQueued(engine)) await processNodeTask(tasks[0]!, engine.deps, LONG);
    // The reader reads the request as it stands, not the copy.
    engine.store.requests.get(request.id)!.extra_micro_usd = 1_234;
    assert.equal(await owed[2]!.unpaidExtraNow!(), 1_234);
    assert.equal(owed[2]!.unpaidExtraMicroUsd, 0);
    assert.deepEqual(
      owed.map((o) => [o.pending?.atMost, o.unpaidExtraNow !== undefined]),
      [
        [2 * NODE_EXECUTION_FEE_MICRO_USD, false],
        [2 * NODE_EXECUTION_FEE_MICRO_USD, true],
        [2 * NODE_EXECUTION_FEE_MICRO_USD, true],
      ],
    );
  });

  test('a task that could not be sent leaves the events it was to take with the invocation, which logs them before its message comes back', async () => {
    const engine = fakeEngine(chainOf('a', 'b'));
    const request = await run(engine);
    const [taskA] = takeQueued(engine);
    engine.deps.enqueue = async () => {
      throw new Error('SQS is down');
    };
    await assert.rejects(processNodeTask(taskA!, engine.deps, LONG), /SQS is down/);
    assert.equal(engine.store.node(request.id, 'a')?.status, 'completed');
    assert.deepEqual(statusesLogged(engine), ['a in_progress', 'request in_progress', 'a completed']);
  });

  test('a node that runs long has the events it was handed logged once they are LATE_FLUSH_MS old, while it runs', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let finish!: () => void;
    let runs = 0;
    const engine = fakeEngine(chainOf('a', 'b'), {
      transform: async () => {
        runs++;
        if (runs === 1) return { n: 1 };
        return new Promise((resolve) => {
          finish = () => resolve({ n: 2 });
        });
      },
    });
    await run(engine);
    await processNodeTask(takeQueued(engine)[0]!, engine.deps, LONG);
    const [taskB] = takeQueued(engine);
    assert.ok(taskB?.events && taskB.events.data.length > 0, 'a’s events travel with b’s task');
    // They waited 600 ms (in the queue, say) before b's worker got them.
    const handed = { ...taskB, events: { ...taskB.events, since: Date.now() - 600 } };

    const processing = processNodeTask(handed, engine.deps, LONG);
    await vi.advanceTimersByTimeAsync(LATE_FLUSH_MS - 600 - 50);
    assert.equal(engine.store.calls.appendEvents ?? 0, 0);
    await vi.advanceTimersByTimeAsync(100);
    assert.equal(engine.store.calls.appendEvents, 1, 'a’s events and b’s start, while b runs');
    finish();
    await processing;
    assert.equal(engine.store.calls.appendEvents, 2);
  });
});

describe('EventBuffer: events handed on', () => {
  const data = (id: string, status: string): RequestEvent['data'] => ({ node_execution: { id, node_id: id, status, attempt_count: 1 } });
  const appended: Array<{ requestId: string; data: unknown[]; nextSeq?: number; identity: boolean }> = [];
  const requests = {
    appendEvents: async (requestId: string, list: Array<RequestEvent['data']>, nextSeq?: number, options?: { identity?: unknown }) => {
      appended.push({ requestId, data: list, ...(nextSeq === undefined ? {} : { nextSeq }), identity: options?.identity !== undefined });
      return list.map((d, i) => ({ seq: (nextSeq ?? 1) + i, created_at: 't', data: d }));
    },
  };

  test('handed over only with the seq known, younger than the age limit and within the size: then out of the buffer, and its seq forgotten here', () => {
    const limits = { maxAgeMs: LATE_FLUSH_MS, maxBytes: 1024 };
    const unknownSeq = new EventBuffer();
    unknownSeq.push('r', data('a', 'completed'));
    assert.equal(unknownSeq.handOver('r', limits), undefined);

    const big = new EventBuffer([['r', 4]]);
    big.push('r', { node_execution: { id: 'a', output_data: 'x'.repeat(2048) } });
    assert.equal(big.handOver('r', limits), undefined);

    const old = new EventBuffer([['r', 4]], { requestId: 'r', since: Date.now() - LATE_FLUSH_MS, data: [data('a', 'completed')] });
    assert.equal(old.handOver('r', limits), undefined);

    const fresh = new EventBuffer([['r', 4]]);
    fresh.push('r', data('a', 'in_progress'));
    fresh.push('r', data('a', 'completed'));
    const handed = fresh.handOver('r', limits);
    assert.equal(handed?.seq, 4);
    assert.deepEqual(handed?.events.data, [data('a', 'in_progress'), data('a', 'completed')]);
    assert.equal(fresh.oldest(), undefined);
    assert.equal(fresh.nextSeq('r'), undefined);
  });

  test('events received with the task are logged first, from its seq, told their identity; events of its own only are not', async () => {
    appended.length = 0;
    const received = new EventBuffer([['r', 7]], { requestId: 'r', since: Date.now(), data: [data('a', 'completed')] });
    received.push('r', data('b', 'in_progress'));
    received.push('other', data('x', 'in_progress'));
    await received.flush(requests);
    assert.deepEqual(appended, [
      { requestId: 'r', data: [data('a', 'completed'), data('b', 'in_progress')], nextSeq: 7, identity: true },
      { requestId: 'other', data: [data('x', 'in_progress')], identity: false },
    ]);
    assert.equal(received.nextSeq('r'), 9);
  });

  test('an event’s identity is its node execution, status and attempt (or its request and status), whatever else it carries', () => {
    assert.equal(eventIdentity({ node_execution: { id: 'n', status: 'completed', attempt_count: 2, output_data: 1 } }), 'node n completed 2');
    assert.equal(eventIdentity({ workflow_request: { id: 'r', status: 'completed' } }), 'request r completed');
  });
});

describe('claimNode (repository)', () => {
  test('claims under the status guard, creating an unwritten node; refused, it answers the node DynamoDB sent back with the refusal', async () => {
    const { mock, table } = mockedDynamoDb();
    const requestId = randomUUID();
    const stored = { pk: 'p', sk: 's', node_id: 'b', status: 'completed', attempt_count: 1, done_parents: new Set(['a']) };
    mock
      .on(UpdateCommand)
      .resolvesOnce({ Attributes: { ...stored, status: 'in_progress' } })
      .rejectsOnce(conditionFailed(marshall(stored)))
      .rejectsOnce(conditionFailed());
    const repo = workflowRequestsRepo(table);
    const set = { status: 'in_progress' as const, lease_expires_at: 5 };

    const claimed = await repo.claimNode(requestId, 'b', ['blocked'], set, { incrementAttempt: true, leaseExpiredBefore: 1 });
    assert.equal(claimed.claimed?.status, 'in_progress');
    const input = mock.commandCalls(UpdateCommand)[0]!.args[0].input;
    assert.equal(input.ReturnValuesOnConditionCheckFailure, 'ALL_OLD');
    assert.equal(input.ReturnValues, 'ALL_NEW');
    assert.match(input.ConditionExpression!, /#lease < :leaseNow/);

    const refused = await repo.claimNode(requestId, 'b', ['blocked'], set);
    assert.equal(refused.claimed, undefined);
    assert.deepEqual(refused.claimed === undefined && refused.current, { node_id: 'b', status: 'completed', attempt_count: 1, done_parents: new Set(['a']) });

    const none = await repo.claimNode(requestId, 'b', ['pending'], set);
    assert.deepEqual(none, { claimed: undefined, current: undefined });
  });
});
