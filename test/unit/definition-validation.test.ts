import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { NotFoundError, ValidationError } from '#platform/errors.js';
import { STATUS_OF } from '#platform/http/problem.js';
import { checkDefinition } from '#workflows/definition-validation.js';
import type { WorkflowVersion } from '#workflows/model.js';
import { WorkflowDefinitionInput } from '#workflows/schemas/workflow-definition.js';
import { createVersion } from '#workflows/workflow-versions.js';
import type { WorkflowsRepo } from '#workflows/workflows-repository.js';

const ID = (n: number) => `00000000-0000-0000-0000-${String(n).padStart(12, '0')}`;

/** Parses like the request schema does (defaults applied), then checks. */
function check(definition: unknown, options: { maxBytes?: number } = {}) {
  let n = 100;
  return checkDefinition(WorkflowDefinitionInput.parse(definition), { newId: () => ID(n++), ...options });
}

/** The faults as [pointer, code] pairs. */
const faults = async (definition: unknown) => (await check(definition)).errors.map((e) => [e.name, e.code]);

const transform = (name: string, expression = '$') => ({ name, type: 'transform', config: { expression } });
const condition = (name: string) => ({ name, type: 'condition' });

describe('a valid definition', () => {
  test('assigns missing ids, resolves edges by name or id, stores edges by id, finds entry nodes', async () => {
    const result = await check({
      nodes: [transform('a'), { ...transform('b'), id: ID(7).toUpperCase() }, condition('c'), { name: 'd', type: 'approval' }],
      edges: [
        { from: 'a', to: 'c' },
        { from: ID(7), to: 'c' },
        { from: 'c', to: 'd', when: '$.ok = true' },
      ],
    });
    assert.deepEqual(result.errors, []);
    assert.deepEqual(
      result.definition.nodes.map((n) => [n.id, n.name]),
      [
        [ID(100), 'a'],
        [ID(7), 'b'],
        [ID(101), 'c'],
        [ID(102), 'd'],
      ],
    );
    assert.deepEqual(result.definition.edges, [
      { from: ID(100), to: ID(101) },
      { from: ID(7), to: ID(101) },
      { from: ID(101), to: ID(102), when: '$.ok = true' },
    ]);
    assert.deepEqual(result.entryNodeIds, [ID(100), ID(7)]);
  });

  test('configs are stored with their defaults; retry and timeout are kept', async () => {
    const result = await check({
      nodes: [{ name: 'agent', type: 'agent', config: { model: 'local/echo' }, retry: { max_attempts: 3 }, timeout_ms: 5000 }],
    });
    assert.deepEqual(result.errors, []);
    const node = result.definition.nodes[0]!;
    assert.deepEqual(node.config, { model: 'local/echo', system_prompt: '' });
    assert.equal(node.retry?.max_attempts, 3);
    assert.equal(node.retry?.backoff_ms, 1000);
    assert.equal(node.timeout_ms, 5000);
  });

  test('a string that is one node’s id and another node’s name means the id', async () => {
    const result = await check({
      nodes: [{ ...transform('first'), id: ID(1) }, transform(ID(1)), transform('third')],
      edges: [{ from: ID(1), to: 'third' }],
    });
    assert.deepEqual(result.errors, []);
    assert.deepEqual(result.definition.edges, [{ from: ID(1), to: ID(101) }]);
  });

  test('workflow nodes are returned as references to check against stored versions', async () => {
    const result = await check({ nodes: [{ name: 'child', type: 'workflow', config: { workflow_version_id: ID(9).toUpperCase(), entry_node_ids: [ID(3)] } }] });
    assert.deepEqual(result.errors, []);
    assert.deepEqual(result.references, [{ configPointer: '/definition/nodes/0/config', versionId: ID(9), entryNodeIds: [ID(3)] }]);
  });
});

describe('every fault is one entry with its pointer and code', () => {
  test('duplicate ids (case-insensitive) and duplicate names', async () => {
    assert.deepEqual(
      await faults({
        nodes: [
          { ...transform('a'), id: 'abcdef00-0000-0000-0000-000000000001' },
          { ...transform('b'), id: 'ABCDEF00-0000-0000-0000-000000000001' },
          transform('a'),
        ],
      }),
      [
        ['/definition/nodes/1/id', 'duplicate_id'],
        ['/definition/nodes/2/name', 'duplicate_name'],
      ],
    );
  });

  test('unknown node type', async () => {
    assert.deepEqual(await faults({ nodes: [{ name: 'x', type: 'lambda' }] }), [['/definition/nodes/0/type', 'unknown_type']]);
  });

  test('config checked by its type: unknown keys, missing and malformed values', async () => {
    assert.deepEqual(
      await faults({
        nodes: [
          { name: 'a', type: 'transform', config: { expression: '$', extra: 1, 'a/b': 2 } },
          { name: 'b', type: 'transform', config: {} },
          { name: 'c', type: 'http', config: { method: 'FETCH', url: 'https://example.com' } },
          { name: 'd', type: 'agent', config: { model: 'no-provider' } },
          { name: 'e', type: 'condition', config: { expression: '$' } },
          { name: 'f', type: 'agent', config: { model: 'local/echo', tools: [{ name: 't', approve: true }] } },
        ],
      }),
      [
        ['/definition/nodes/0/config/extra', 'unknown_field'],
        ['/definition/nodes/0/config/a~1b', 'unknown_field'],
        ['/definition/nodes/1/config/expression', 'required'],
        ['/definition/nodes/2/config/method', 'invalid_value'],
        ['/definition/nodes/3/config/model', 'invalid_format'],
        ['/definition/nodes/4/config/expression', 'unknown_field'],
        ['/definition/nodes/5/config/tools/0/approve', 'unknown_field'],
      ],
    );
  });

  test('JSONata that does not compile: transform expression and edge when', async () => {
    const result = await check({
      nodes: [transform('a', '$sum(('), condition('c'), transform('d')],
      edges: [
        { from: 'a', to: 'c' },
        { from: 'c', to: 'd', when: 'status = ' },
      ],
    });
    assert.deepEqual(
      result.errors.map((e) => [e.name, e.code]),
      [
        ['/definition/nodes/0/config/expression', 'invalid_expression'],
        ['/definition/edges/1/when', 'invalid_expression'],
      ],
    );
    assert.match(result.errors[0]!.reason, /JSONata/);
    assert.equal(result.errors[0]!.location, 'body');
  });

  test('edges naming no node, by id or by name', async () => {
    assert.deepEqual(
      await faults({
        nodes: [transform('a')],
        edges: [
          { from: 'a', to: 'nope' },
          { from: ID(5), to: 'a' },
        ],
      }),
      [
        ['/definition/edges/0/to', 'unknown_node'],
        ['/definition/edges/1/from', 'unknown_node'],
      ],
    );
  });

  test('self-loops and repeated edges', async () => {
    assert.deepEqual(
      await faults({
        nodes: [transform('a'), transform('b')],
        edges: [
          { from: 'a', to: 'b' },
          { from: 'b', to: 'b' },
          { from: 'a', to: 'b' },
        ],
      }),
      [
        ['/definition/edges/1', 'self_loop'],
        ['/definition/edges/2', 'duplicate_edge'],
      ],
    );
  });

  test('`when` only on edges leaving a condition node', async () => {
    assert.deepEqual(await faults({ nodes: [transform('a'), transform('b')], edges: [{ from: 'a', to: 'b', when: 'true' }] }), [
      ['/definition/edges/0/when', 'when_not_allowed'],
    ]);
  });

  test('a cycle names the edge that closes it', async () => {
    const result = await check({
      nodes: [transform('start'), transform('a'), transform('b'), transform('c')],
      edges: [
        { from: 'start', to: 'a' },
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
        { from: 'c', to: 'a' },
      ],
    });
    assert.deepEqual(
      result.errors.map((e) => [e.name, e.code]),
      [['/definition/edges/3', 'cycle']],
    );
    assert.equal(result.errors[0]!.reason, 'closes a cycle: a → b → c → a');
  });

  test('no entry node (every node in a cycle) is a fault of its own', async () => {
    assert.deepEqual(
      await faults({
        nodes: [transform('a'), transform('b')],
        edges: [
          { from: 'a', to: 'b' },
          { from: 'b', to: 'a' },
        ],
      }),
      [
        ['/definition/edges/1', 'cycle'],
        ['/definition/nodes', 'no_entry_node'],
      ],
    );
  });

  test('a definition too large to store', async () => {
    const result = await check({ nodes: [transform('a', 'x'.repeat(500))] }, { maxBytes: 400 });
    assert.deepEqual(
      result.errors.map((e) => [e.name, e.code]),
      [['/definition', 'too_large']],
    );
  });

  test('several faults are all reported, in body order', async () => {
    assert.deepEqual(
      await faults({
        nodes: [{ name: 'a', type: 'bogus' }, transform('b', '(')],
        edges: [{ from: 'a', to: 'zz' }],
      }),
      [
        ['/definition/nodes/0/type', 'unknown_type'],
        ['/definition/nodes/1/config/expression', 'invalid_expression'],
        ['/definition/edges/0/to', 'unknown_node'],
      ],
    );
  });
});

describe('createVersion', () => {
  const accountId = ID(42);
  const workflow = {
    id: ID(50),
    account_id: accountId,
    name: 'w',
    description: null,
    latest_version_id: null,
    version_count: 0,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  };
  const child: WorkflowVersion = {
    id: ID(60),
    workflow_id: ID(51),
    account_id: accountId,
    version: 1,
    definition: { nodes: [{ id: ID(61), name: 'n', type: 'transform', config: { expression: '$' } }], edges: [] },
    entry_node_ids: [ID(61)],
    created_at: '2026-01-01T00:00:00.000Z',
  };
  const fakeRepo = (stored: WorkflowVersion[] = [child]) => {
    const created: unknown[] = [];
    const repo = {
      get: async (acct: string, id: string) => (acct === accountId && id === workflow.id ? workflow : undefined),
      getVersion: async (acct: string, id: string) => stored.find((v) => v.id === id && v.account_id === acct),
      createVersion: async (_w: unknown, input: { id: string }) => {
        created.push(input);
        return { ...child, ...input, version: 1 };
      },
    } as unknown as WorkflowsRepo;
    return { repo, created };
  };

  test('workflow nodes must name a version of the account, and its nodes', async () => {
    const { repo, created } = fakeRepo();
    const body = {
      definition: WorkflowDefinitionInput.parse({
        nodes: [
          { name: 'ok', type: 'workflow', config: { workflow_version_id: ID(60), entry_node_ids: [ID(61), ID(62)] } },
          { name: 'missing', type: 'workflow', config: { workflow_version_id: ID(99) } },
        ],
      }),
    };
    const error = await createVersion(repo, accountId, workflow.id, body).catch((e: unknown) => e);
    assert.ok(error instanceof ValidationError);
    assert.equal(STATUS_OF[error.kind], 422);
    assert.deepEqual(
      error.options.errors?.map((e) => [e.name, e.code]),
      [
        ['/definition/nodes/0/config/entry_node_ids/1', 'unknown_node'],
        ['/definition/nodes/1/config/workflow_version_id', 'not_found'],
      ],
    );
    assert.equal(created.length, 0);
  });

  test("another account's workflow is 404 before the definition is looked at", async () => {
    const { repo } = fakeRepo();
    await assert.rejects(
      createVersion(repo, ID(43), workflow.id, { definition: WorkflowDefinitionInput.parse({ nodes: [{ name: 'x', type: 'bogus' }] }) }),
      NotFoundError,
    );
  });

  test('a valid definition is stored with its entry nodes', async () => {
    const { repo, created } = fakeRepo();
    await createVersion(repo, accountId, workflow.id, { definition: WorkflowDefinitionInput.parse({ nodes: [{ id: ID(1), name: 'a', type: 'approval' }] }) });
    assert.equal(created.length, 1);
    assert.deepEqual((created[0] as { entry_node_ids: string[] }).entry_node_ids, [ID(1)]);
  });
});
