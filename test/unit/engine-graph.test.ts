import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'vitest';
import { graphOf, initialStates, topologicalOrder } from '#execution/graph.js';
import { NodeFailure } from '#execution/node-failure.js';
import { edgeTaken } from '#execution/node-types.js';
import { retryDelayMs, shouldRetry } from '#execution/retry.js';

const n = (id: string) => ({ id, name: id, type: 'transform' as const, config: { expression: '1' } });

describe('graph', () => {
  // e1 → a → c ; e2 → b → c ; e2 → d
  const definition = {
    nodes: ['e1', 'e2', 'a', 'b', 'c', 'd'].map(n),
    edges: [
      { from: 'e1', to: 'a' },
      { from: 'a', to: 'c' },
      { from: 'e2', to: 'b' },
      { from: 'b', to: 'c' },
      { from: 'e2', to: 'd' },
    ],
  };
  const graph = graphOf(randomUUID(), definition);

  test('topological order puts parents first', () => {
    const order = topologicalOrder(graph);
    for (const edge of definition.edges) assert.ok(order.indexOf(edge.from) < order.indexOf(edge.to));
  });

  test('starting at some entries skips the others and what only they lead to', () => {
    const states = initialStates(graph, ['e1']);
    assert.deepEqual(Object.fromEntries([...states].map(([id, s]) => [id, s.state])), {
      e1: 'pending',
      e2: 'skipped',
      a: 'blocked',
      b: 'skipped',
      c: 'blocked',
      d: 'skipped',
    });
    assert.deepEqual(states.get('c')?.doneParents, ['b']);
  });
});

describe('retry policy', () => {
  const policy = { max_attempts: 3, backoff_ms: 100, backoff_multiplier: 2, max_backoff_ms: 300, jitter: false };
  test('retries retryable failures while attempts remain, filtered by retry_on', () => {
    assert.equal(shouldRetry(undefined, 1, new Error('x')), false);
    assert.equal(shouldRetry(policy, 1, new NodeFailure('http_5xx', 'x')), true);
    assert.equal(shouldRetry(policy, 3, new NodeFailure('http_5xx', 'x')), false);
    assert.equal(shouldRetry(policy, 1, new NodeFailure('expression_error', 'x', false)), false);
    assert.equal(shouldRetry({ ...policy, retry_on: ['timeout'] }, 1, new NodeFailure('http_5xx', 'x')), false);
    assert.equal(shouldRetry({ ...policy, retry_on: ['timeout'] }, 1, new NodeFailure('timeout', 'x')), true);
  });
  test('exponential backoff, capped, with jitter between half and the full delay', () => {
    assert.deepEqual(
      [1, 2, 3, 4].map((a) => retryDelayMs(policy, a)),
      [100, 200, 300, 300],
    );
    const jittered = { ...policy, jitter: true };
    assert.equal(
      retryDelayMs(jittered, 2, () => 0),
      100,
    );
    assert.equal(
      retryDelayMs(jittered, 2, () => 1),
      200,
    );
  });
});

describe('edge predicates', () => {
  test('JSONata truthiness; no predicate is always taken', async () => {
    assert.equal(await edgeTaken(undefined, {}), true);
    assert.equal(await edgeTaken('amount > 100', { amount: 101 }), true);
    assert.equal(await edgeTaken('amount > 100', { amount: 5 }), false);
    assert.equal(await edgeTaken('missing', {}), false);
    assert.equal(await edgeTaken('items', { items: [] }), false);
  });
});
