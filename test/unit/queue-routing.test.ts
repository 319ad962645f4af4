import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { QUEUES } from '#app/queues.js';
import { AGENT_RUNTIME } from '#execution/agent-runtime.js';
import { NODE_RUNTIME } from '#execution/node-types.js';
import { AGENT_TASKS_QUEUE, NODE_TASKS_QUEUE, queueFor } from '#execution/queues.js';

describe('node task routing', () => {
  test('agent nodes go to the agent queue, everything else to node-tasks', () => {
    assert.equal(queueFor('agent'), AGENT_TASKS_QUEUE);
    for (const type of ['transform', 'condition', 'http', 'approval', 'workflow', undefined]) assert.equal(queueFor(type), NODE_TASKS_QUEUE);
    assert.deepEqual(
      QUEUES.map((q) => q.name)
        .filter((name) => name.endsWith('-tasks'))
        .sort(),
      [AGENT_TASKS_QUEUE, NODE_TASKS_QUEUE].sort(),
    );
  });

  test('each worker runs its own types and the pure ones; both evaluate JSONata predicates', () => {
    assert.deepEqual(Object.keys(NODE_RUNTIME.runners).sort(), ['condition', 'http', 'transform']);
    assert.deepEqual(Object.keys(AGENT_RUNTIME.runners).sort(), ['agent', 'condition', 'transform']);
    assert.equal(NODE_RUNTIME.edgeTaken, AGENT_RUNTIME.edgeTaken);
    assert.equal(QUEUES.find((q) => q.name === AGENT_TASKS_QUEUE)?.invokesModels, true);
    assert.notEqual(QUEUES.find((q) => q.name === NODE_TASKS_QUEUE)?.invokesModels, true);
  });
});
