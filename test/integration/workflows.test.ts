import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { workflowsRepo } from '#workflows/workflows-repository.js';
import { bearer, signedUpUser, startTestStack } from '../helpers/stack.js';

let stack: Awaited<ReturnType<typeof startTestStack>>;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

// biome-ignore lint/suspicious/noExplicitAny: response bodies are JSON the tests read field by field
type Json = Record<string, any>;
interface Problem {
  status: number;
  code: string;
  detail: string;
  trace_id: string;
  errors?: Array<{ name: string; location: string; reason: string; code: string }>;
}

const call = async (method: string, path: string, token: string, body?: unknown) => {
  const response = await fetch(`${stack.url}${path}`, {
    method,
    headers: { ...bearer(token), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, type: response.headers.get('content-type'), body: (text ? JSON.parse(text) : undefined) as Json };
};
const get = (path: string, token: string) => call('GET', path, token);
const post = (path: string, token: string, body: unknown) => call('POST', path, token, body);

async function newWorkflow(token: string, name = `flow ${randomUUID().slice(0, 8)}`, description?: string) {
  const created = await post('/v1/workflows', token, description === undefined ? { name } : { name, description });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

const simpleDefinition = {
  nodes: [
    { name: 'start', type: 'transform', config: { expression: '{"n": $count(items)}' } },
    { name: 'check', type: 'condition' },
    { name: 'approve', type: 'approval', config: { prompt: 'OK?' } },
    { name: 'done', type: 'transform', config: { expression: '$' } },
  ],
  edges: [
    { from: 'start', to: 'check' },
    { from: 'check', to: 'approve', when: 'n > 10' },
    { from: 'check', to: 'done' },
  ],
};

/** A 404 body without its per-request trace id. */
const comparable = (problem: Json) => ({ ...problem, trace_id: undefined });

describe('workflows', () => {
  test('create answers 201 with the workflow and no version; get returns it', async () => {
    const user = await signedUpUser(stack);
    const created = await post('/v1/workflows', user.token, { name: '  Invoice Flow ', description: 'Pays invoices' });
    assert.equal(created.status, 201);
    const workflow = created.body;
    assert.deepEqual(Object.keys(workflow).sort(), ['created_at', 'description', 'id', 'latest_version_id', 'name', 'updated_at']);
    assert.equal(workflow.name, 'Invoice Flow');
    assert.equal(workflow.description, 'Pays invoices');
    assert.equal(workflow.latest_version_id, null);
    assert.match(workflow.id, /^[0-9a-f-]{36}$/);
    const fetched = await get(`/v1/workflows/${workflow.id}`, user.token);
    assert.equal(fetched.status, 200);
    assert.deepEqual(fetched.body, workflow);
    const bare = await newWorkflow(user.token, 'no description');
    assert.equal(bare.description, null);
  });

  test('create input: missing name 422, unknown field 400, no token 401', async () => {
    const user = await signedUpUser(stack);
    const missing = await post('/v1/workflows', user.token, { description: 'x' });
    assert.equal(missing.status, 422);
    assert.equal(missing.type, 'application/problem+json');
    assert.deepEqual(missing.body.errors, [{ name: '/name', location: 'body', reason: 'is required', code: 'required' }]);
    const blank = await post('/v1/workflows', user.token, { name: '   ' });
    assert.equal(blank.status, 422);
    const unknown = await post('/v1/workflows', user.token, { name: 'x', owner: 'me' });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.code, 'unknown_field');
    const anonymous = await fetch(`${stack.url}/v1/workflows`);
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.headers.get('www-authenticate'), 'Bearer realm="workflow-service"');
  });

  test('list is newest first and pages by cursor; limit is echoed', async () => {
    const user = await signedUpUser(stack);
    const names = ['one', 'two', 'three', 'four', 'five'];
    for (const name of names) await newWorkflow(user.token, name);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : '?limit=2';
      const page = await get(`/v1/workflows${query}`, user.token);
      assert.equal(page.status, 200);
      assert.equal(page.body.limit, 2);
      assert.equal(page.body.has_more, page.body.next_cursor !== null);
      seen.push(...page.body.workflows.map((w: Json) => w.name));
      cursor = page.body.next_cursor;
      pages++;
    } while (cursor);
    assert.equal(pages, 3);
    assert.deepEqual(seen, [...names].reverse());
    const all = await get('/v1/workflows', user.token);
    assert.equal(all.body.limit, 20);
    assert.equal(all.body.workflows.length, 5);
    assert.equal(all.body.has_more, false);
    assert.equal(all.body.next_cursor, null);
  });

  test('a cursor whose position was changed and its checksum recomputed (what an unkeyed SHA-256 allowed) is 400 cursor_invalid', async () => {
    const user = await signedUpUser(stack);
    for (const name of ['one', 'two', 'three']) await newWorkflow(user.token, name);
    const cursor: string = (await get('/v1/workflows?limit=1', user.token)).body.next_cursor;
    const body = JSON.parse(Buffer.from(cursor.split('.')[0]!, 'base64url').toString('utf8'));
    const moved = Buffer.from(JSON.stringify({ ...body, p: { ...body.p, pk: `${body.p.pk}-other` } })).toString('base64url');
    const sha = createHash('sha256').update(`cursor:v1:${moved}`).digest('base64url');
    for (const sum of [sha.slice(0, 16), sha.slice(0, 22)]) {
      const forged = await get(`/v1/workflows?limit=1&cursor=${encodeURIComponent(`${moved}.${sum}`)}`, user.token);
      assert.equal(forged.status, 400, sum);
      assert.equal(forged.body.code, 'cursor_invalid');
    }
    assert.equal((await get(`/v1/workflows?limit=1&cursor=${encodeURIComponent(cursor)}`, user.token)).status, 200, 'the cursor as issued still pages');
  });

  test('search matches a name substring ignoring case, pages correctly, and a cursor is bound to its search', async () => {
    const user = await signedUpUser(stack);
    const names = ['Alpha Report', 'beta', 'REPORTING daily', 'gamma', 'weekly report', 'delta', 'Report card'];
    for (const name of names) await newWorkflow(user.token, name);
    const seen: string[] = [];
    let cursor: string | null = null;
    let first: string | null = null;
    do {
      const query: string = `?search=rePORT&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await get(`/v1/workflows${query}`, user.token);
      assert.equal(page.status, 200, JSON.stringify(page.body));
      seen.push(...page.body.workflows.map((w: Json) => w.name));
      cursor = page.body.next_cursor;
      first ??= cursor;
    } while (cursor);
    assert.deepEqual(seen, ['Report card', 'weekly report', 'REPORTING daily', 'Alpha Report']);
    // Same search in another case is the same filter; another search or none is a mismatch.
    assert.equal((await get(`/v1/workflows?search=REPORT&limit=2&cursor=${encodeURIComponent(first!)}`, user.token)).status, 200);
    for (const query of ['?search=beta&limit=2', '?limit=2']) {
      const mismatch = await get(`/v1/workflows${query}&cursor=${encodeURIComponent(first!)}`, user.token);
      assert.equal(mismatch.status, 400, query);
      assert.equal(mismatch.body.code, 'cursor_filter_mismatch');
    }
    const none = await get('/v1/workflows?search=zzz', user.token);
    assert.deepEqual([none.body.workflows, none.body.has_more, none.body.next_cursor], [[], false, null]);
    const empty = await get('/v1/workflows?search=', user.token);
    assert.equal(empty.body.workflows.length, names.length);
  });

  test("bad list parameters and another account's cursor are 400", async () => {
    const user = await signedUpUser(stack);
    const other = await signedUpUser(stack);
    await newWorkflow(other.token);
    await newWorkflow(other.token);
    const foreign = (await get('/v1/workflows?limit=1', other.token)).body.next_cursor as string;
    const cases: Array<[string, string]> = [
      ['?limit=0', 'invalid_parameter'],
      ['?limit=101', 'invalid_parameter'],
      ['?limit=x', 'invalid_parameter'],
      ['?cursor=garbage', 'cursor_invalid'],
      [`?limit=1&cursor=${encodeURIComponent(foreign)}`, 'cursor_filter_mismatch'],
    ];
    for (const [query, code] of cases) {
      const response = await get(`/v1/workflows${query}`, user.token);
      assert.equal(response.status, 400, query);
      assert.equal(response.body.code, code, query);
    }
  });

  test("malformed, unknown and another account's workflow ids answer the same 404", async () => {
    const user = await signedUpUser(stack);
    const other = await signedUpUser(stack);
    const foreign = await newWorkflow(other.token);
    await post(`/v1/workflows/${foreign.id}/versions`, other.token, { definition: simpleDefinition });
    const bodies: Json[] = [];
    for (const id of ['not-a-uuid', randomUUID(), foreign.id]) {
      for (const path of [`/v1/workflows/${id}`, `/v1/workflows/${id}/versions/latest`]) {
        const response = await get(path, user.token);
        assert.equal(response.status, 404, path);
        assert.equal(response.type, 'application/problem+json');
        assert.equal(response.body.code, 'not_found');
        bodies.push({ path: path.replace(id, ':id'), body: comparable(response.body) });
      }
      const version = await post(`/v1/workflows/${id}/versions`, user.token, { definition: simpleDefinition });
      assert.equal(version.status, 404);
      bodies.push({ path: 'POST versions', body: comparable(version.body) });
    }
    const [a, b, c] = [bodies.slice(0, 3), bodies.slice(3, 6), bodies.slice(6, 9)];
    assert.deepEqual(a, b);
    assert.deepEqual(a, c);
  });
});

describe('workflow versions', () => {
  test('versions are numbered 1, 2, 3; latest follows; the stored definition carries ids', async () => {
    const user = await signedUpUser(stack);
    const workflow = await newWorkflow(user.token);
    const none = await get(`/v1/workflows/${workflow.id}/versions/latest`, user.token);
    assert.equal(none.status, 404);
    assert.equal(none.body.code, 'not_found');
    const versions: Json[] = [];
    for (let i = 0; i < 3; i++) {
      const created = await post(`/v1/workflows/${workflow.id}/versions`, user.token, { definition: simpleDefinition });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      versions.push(created.body);
    }
    assert.deepEqual(
      versions.map((v) => v.version),
      [1, 2, 3],
    );
    const v1 = versions[0]!;
    assert.deepEqual(Object.keys(v1).sort(), ['created_at', 'definition', 'entry_node_ids', 'id', 'version', 'workflow_id']);
    assert.equal(v1.workflow_id, workflow.id);
    const ids = Object.fromEntries(v1.definition.nodes.map((n: Json) => [n.name, n.id]));
    for (const id of Object.values(ids)) assert.match(id as string, /^[0-9a-f-]{36}$/);
    assert.deepEqual(v1.definition.edges, [
      { from: ids.start, to: ids.check },
      { from: ids.check, to: ids.approve, when: 'n > 10' },
      { from: ids.check, to: ids.done },
    ]);
    assert.deepEqual(v1.entry_node_ids, [ids.start]);
    const latest = await get(`/v1/workflows/${workflow.id}/versions/latest`, user.token);
    assert.equal(latest.status, 200);
    assert.deepEqual(latest.body, versions[2]);
    const after = await get(`/v1/workflows/${workflow.id}`, user.token);
    assert.equal(after.body.latest_version_id, versions[2]!.id);
    assert.ok(after.body.updated_at >= workflow.updated_at);
  });

  test('concurrent creates get distinct numbers', async () => {
    const user = await signedUpUser(stack);
    const workflow = await newWorkflow(user.token);
    const created = await Promise.all(
      Array.from({ length: 6 }, () => post(`/v1/workflows/${workflow.id}/versions`, user.token, { definition: simpleDefinition })),
    );
    assert.deepEqual(
      created.map((c) => c.status),
      [201, 201, 201, 201, 201, 201],
    );
    assert.deepEqual(created.map((c) => c.body.version).sort(), [1, 2, 3, 4, 5, 6]);
    const latest = await get(`/v1/workflows/${workflow.id}/versions/latest`, user.token);
    assert.equal(latest.body.version, 6);
  });

  test('client ids are kept (lower-cased) and edges may name nodes by id or by name', async () => {
    const user = await signedUpUser(stack);
    const workflow = await newWorkflow(user.token);
    const a = '00000000-0000-0000-0000-00000000000A';
    const created = await post(`/v1/workflows/${workflow.id}/versions`, user.token, {
      definition: {
        nodes: [
          { id: a, name: 'a', type: 'transform', config: { expression: '$' } },
          { name: 'b', type: 'agent', config: { model: 'local/echo' } },
        ],
        edges: [{ from: a.toLowerCase(), to: 'b' }],
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const [nodeA, nodeB] = created.body.definition.nodes;
    assert.equal(nodeA.id, a.toLowerCase());
    assert.deepEqual(nodeB.config, { model: 'local/echo', system_prompt: '' });
    assert.deepEqual(created.body.definition.edges, [{ from: nodeA.id, to: nodeB.id }]);
  });

  test('entry nodes of a version; the path id is a version id', async () => {
    const user = await signedUpUser(stack);
    const workflow = await newWorkflow(user.token);
    const version = (
      await post(`/v1/workflows/${workflow.id}/versions`, user.token, {
        definition: {
          nodes: [
            { name: 'left', type: 'transform', config: { expression: '1' } },
            { name: 'right', type: 'approval' },
            { name: 'join', type: 'transform', config: { expression: '$' } },
          ],
          edges: [
            { from: 'left', to: 'join' },
            { from: 'right', to: 'join' },
          ],
        },
      })
    ).body;
    const entry = await get(`/v1/workflows/${version.id}/entry-nodes`, user.token);
    assert.equal(entry.status, 200);
    const ids = Object.fromEntries(version.definition.nodes.map((n: Json) => [n.name, n.id]));
    assert.deepEqual(entry.body, {
      entry_nodes: [
        { id: ids.left, name: 'left', type: 'transform' },
        { id: ids.right, name: 'right', type: 'approval' },
      ],
    });
    // The workflow id is not a version id; foreign and malformed version ids are the same 404.
    const other = await signedUpUser(stack);
    const bodies: Json[] = [];
    for (const [token, id] of [
      [user.token, workflow.id],
      [user.token, 'nope'],
      [other.token, version.id],
    ] as const) {
      const response = await get(`/v1/workflows/${id}/entry-nodes`, token);
      assert.equal(response.status, 404);
      bodies.push(comparable(response.body));
    }
    assert.deepEqual(bodies[0], bodies[1]);
    assert.deepEqual(bodies[0], bodies[2]);
  });

  test('the engine reads a version by id, only for its account', async () => {
    const user = await signedUpUser(stack);
    const workflow = await newWorkflow(user.token);
    const version = (await post(`/v1/workflows/${workflow.id}/versions`, user.token, { definition: simpleDefinition })).body;
    const repo = workflowsRepo(stack.table);
    const stored = await repo.getVersion(user.accountId, version.id);
    assert.deepEqual({ ...stored, account_id: undefined }, { ...version, account_id: undefined });
    assert.equal(stored?.account_id, user.accountId);
    assert.equal(await repo.getVersion(randomUUID(), version.id), undefined);
  });

  describe('a bad definition answers its exact status, code and pointer', () => {
    const cases: Array<{ title: string; body: unknown; status: number; code: string; errors?: Array<[string, string]> }> = [
      { title: 'body not JSON', body: '{"definition":', status: 400, code: 'invalid_json' },
      { title: 'no definition', body: {}, status: 422, code: 'validation_failed', errors: [['/definition', 'required']] },
      { title: 'no nodes', body: { definition: { nodes: [] } }, status: 422, code: 'validation_failed', errors: [['/definition/nodes', 'too_small']] },
      {
        title: 'unknown field on the body',
        body: { definition: { nodes: [{ name: 'a', type: 'approval' }] }, draft: true },
        status: 400,
        code: 'unknown_field',
        errors: [['/draft', 'unknown_field']],
      },
      {
        title: 'unknown field on a node',
        body: { definition: { nodes: [{ name: 'a', type: 'approval', colour: 'red' }] } },
        status: 400,
        code: 'unknown_field',
        errors: [['/definition/nodes/0/colour', 'unknown_field']],
      },
      {
        title: 'node id not a UUID',
        body: { definition: { nodes: [{ id: 'n1', name: 'a', type: 'approval' }] } },
        status: 422,
        code: 'validation_failed',
        errors: [['/definition/nodes/0/id', 'invalid_format']],
      },
      {
        title: 'duplicate node id',
        body: {
          definition: {
            nodes: [
              { id: '00000000-0000-0000-0000-000000000001', name: 'a', type: 'approval' },
              { id: '00000000-0000-0000-0000-000000000001', name: 'b', type: 'approval' },
            ],
          },
        },
        status: 422,
        code: 'validation_failed',
        errors: [['/definition/nodes/1/id', 'duplicate_id']],
      },
      {
        title: 'duplicate node name',
        body: {
          definition: {
            nodes: [
              { name: 'a', type: 'approval' },
              { name: 'a', type: 'approval' },
            ],
          },
        },
        status: 422,
        code: 'validation_failed',
        errors: [['/definition/nodes/1/name', 'duplicate_name']],
      },
      {
        title: 'unknown node type',
        body: { definition: { nodes: [{ name: 'a', type: 'python' }] } },
        status: 422,
        code: 'validation_failed',
        errors: [['/definition/nodes/0/type', 'unknown_type']],
      },
      {
        title: 'unknown config key',
        body: { definition: { nodes: [{ name: 'a', type: 'approval', config: { prompt: 'x', timeout: 5 } }] } },
        status: 422,
        code: 'validation_failed',
        errors: [['/definition/nodes/0/config/timeout', 'unknown_field']],
      },
      {
        title: 'missing config value',
        body: { definition: { nodes: [{ name: 'a', type: 'http', config: { method: 'GET' } }] } },
        status: 422,
        code: 'validation_failed',
        errors: [['/definition/nodes/0/config/url', 'required']],
      },
      {
        title: 'transform expression that does not compile',
        body: {
          definition: {
            nodes: [
              { name: 'a', type: 'approval' },
              { name: 'b', type: 'approval' },
              { name: 'c', type: 'approval' },
              { name: 'd', type: 'transform', config: { expression: '$sum((' } },
            ],
          },
        },
        status: 422,
        code: 'validation_failed',
        errors: [['/definition/nodes/3/config/expression', 'invalid_expression']],
      },
      {
        title: 'edge to a missing node',
        body: { definition: { nodes: [{ name: 'a', type: 'approval' }], edges: [{ from: 'a', to: 'b' }] } },
        status: 422,
        code: 'validation_failed',
        errors: [['/definition/edges/0/to', 'unknown_node']],
      },
      {
        title: 'self-loop',
        body: {
          definition: {
            nodes: [
              { name: 'a', type: 'approval' },
              { name: 'b', type: 'approval' },
            ],
            edges: [{ from: 'b', to: 'b' }],
          },
        },
        status: 422,
        code: 'validation_failed',
        errors: [['/definition/edges/0', 'self_loop']],
      },
      {
        title: 'cycle',
        body: {
          definition: {
            nodes: [
              { name: 'a', type: 'approval' },
              { name: 'b', type: 'approval' },
              { name: 'c', type: 'approval' },
            ],
            edges: [
              { from: 'a', to: 'b' },
              { from: 'b', to: 'c' },
              { from: 'c', to: 'b' },
            ],
          },
        },
        status: 422,
        code: 'validation_failed',
        errors: [['/definition/edges/2', 'cycle']],
      },
      {
        title: 'when on an edge not leaving a condition node',
        body: {
          definition: {
            nodes: [
              { name: 'a', type: 'approval' },
              { name: 'b', type: 'approval' },
            ],
            edges: [{ from: 'a', to: 'b', when: 'true' }],
          },
        },
        status: 422,
        code: 'validation_failed',
        errors: [['/definition/edges/0/when', 'when_not_allowed']],
      },
      {
        title: 'when that does not compile',
        body: {
          definition: {
            nodes: [
              { name: 'a', type: 'condition' },
              { name: 'b', type: 'approval' },
            ],
            edges: [{ from: 'a', to: 'b', when: 'x =' }],
          },
        },
        status: 422,
        code: 'validation_failed',
        errors: [['/definition/edges/0/when', 'invalid_expression']],
      },
      {
        title: 'no entry node',
        body: {
          definition: {
            nodes: [
              { name: 'a', type: 'approval' },
              { name: 'b', type: 'approval' },
            ],
            edges: [
              { from: 'a', to: 'b' },
              { from: 'b', to: 'a' },
            ],
          },
        },
        status: 422,
        code: 'validation_failed',
        errors: [
          ['/definition/edges/1', 'cycle'],
          ['/definition/nodes', 'no_entry_node'],
        ],
      },
      {
        title: 'workflow node naming an unknown version',
        body: { definition: { nodes: [{ name: 'a', type: 'workflow', config: { workflow_version_id: randomUUID() } }] } },
        status: 422,
        code: 'validation_failed',
        errors: [['/definition/nodes/0/config/workflow_version_id', 'not_found']],
      },
    ];
    let token: string;
    let workflowId: string;
    beforeAll(async () => {
      const user = await signedUpUser(stack);
      token = user.token;
      workflowId = (await newWorkflow(token)).id;
    });
    for (const c of cases) {
      test(c.title, async () => {
        const response = await post(`/v1/workflows/${workflowId}/versions`, token, c.body);
        assert.equal(response.status, c.status, JSON.stringify(response.body));
        assert.equal(response.type, 'application/problem+json');
        assert.equal(response.body.code, c.code);
        if (c.errors)
          assert.deepEqual(
            (response.body as Problem).errors?.map((e) => [e.name, e.code]),
            c.errors,
          );
        for (const error of (response.body as Problem).errors ?? []) assert.equal(error.location, 'body');
      });
    }
    test('nothing was stored by any of them', async () => {
      assert.equal((await get(`/v1/workflows/${workflowId}/versions/latest`, token)).status, 404);
    });
  });

  test('a workflow node must name a version of the caller, not of another account', async () => {
    const user = await signedUpUser(stack);
    const other = await signedUpUser(stack);
    const mine = (await post(`/v1/workflows/${(await newWorkflow(user.token)).id}/versions`, user.token, { definition: simpleDefinition })).body;
    const theirs = (await post(`/v1/workflows/${(await newWorkflow(other.token)).id}/versions`, other.token, { definition: simpleDefinition })).body;
    const parent = await newWorkflow(user.token);
    const ok = await post(`/v1/workflows/${parent.id}/versions`, user.token, {
      definition: { nodes: [{ name: 'child', type: 'workflow', config: { workflow_version_id: mine.id, entry_node_ids: mine.entry_node_ids } }] },
    });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    const foreign = await post(`/v1/workflows/${parent.id}/versions`, user.token, {
      definition: { nodes: [{ name: 'child', type: 'workflow', config: { workflow_version_id: theirs.id } }] },
    });
    assert.equal(foreign.status, 422);
    assert.deepEqual(
      foreign.body.errors.map((e: Json) => [e.name, e.code]),
      [['/definition/nodes/0/config/workflow_version_id', 'not_found']],
    );
  });
});

describe('chats', () => {
  test('create with and without a workflow, then get', async () => {
    const user = await signedUpUser(stack);
    const workflow = await newWorkflow(user.token);
    const bare = await post('/v1/chats', user.token, {});
    assert.equal(bare.status, 201);
    assert.deepEqual(Object.keys(bare.body).sort(), ['created_at', 'id', 'machine_id', 'title', 'workflow_id']);
    assert.deepEqual([bare.body.title, bare.body.workflow_id, bare.body.machine_id], [null, null, null]);
    const tied = await post('/v1/chats', user.token, { workflow_id: workflow.id, title: 'Support' });
    assert.equal(tied.status, 201);
    assert.deepEqual([tied.body.title, tied.body.workflow_id, tied.body.machine_id], ['Support', workflow.id, null]);
    const fetched = await get(`/v1/chats/${tied.body.id}`, user.token);
    assert.equal(fetched.status, 200);
    assert.deepEqual(fetched.body, tied.body);
  });

  test("a workflow_id that is unknown, malformed or another account's is the same 422 at /workflow_id", async () => {
    const user = await signedUpUser(stack);
    const other = await signedUpUser(stack);
    const foreign = await newWorkflow(other.token);
    const bodies: Json[] = [];
    for (const workflowId of [randomUUID(), 'nope', foreign.id]) {
      const response = await post('/v1/chats', user.token, { workflow_id: workflowId });
      assert.equal(response.status, 422);
      assert.equal(response.body.code, 'validation_failed');
      assert.deepEqual(response.body.errors, [{ name: '/workflow_id', location: 'body', reason: 'is not a workflow of this account', code: 'not_found' }]);
      bodies.push(comparable(response.body));
    }
    assert.deepEqual(bodies[0], bodies[1]);
    assert.deepEqual(bodies[0], bodies[2]);
    assert.equal((await post('/v1/chats', user.token, { topic: 'x' })).status, 400);
  });

  test("malformed, unknown and another account's chat ids answer the same 404", async () => {
    const user = await signedUpUser(stack);
    const other = await signedUpUser(stack);
    const foreign = (await post('/v1/chats', other.token, {})).body;
    const bodies: Json[] = [];
    for (const id of ['x', randomUUID(), foreign.id]) {
      const response = await get(`/v1/chats/${id}`, user.token);
      assert.equal(response.status, 404);
      assert.equal(response.body.code, 'not_found');
      bodies.push(comparable(response.body));
    }
    assert.deepEqual(bodies[0], bodies[1]);
    assert.deepEqual(bodies[0], bodies[2]);
  });
});
