import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { newHarnessId } from '#platform/ids.js';
import { keys } from '#platform/table/keys.js';
import { closedPort, startMcpServer, type TestMcpServer } from '../helpers/mcp-server.js';
import { bearer, signedUpUser, startTestStack } from '../helpers/stack.js';

// The handlers run in this process and read the outbound settings on every call, as an operator
// sets them: the test MCP servers on 127.0.0.1 are reachable over plain http. 127.0.0.2 stays refused.
process.env.OUTBOUND_ALLOWED_HOSTS = '127.0.0.1';
process.env.OUTBOUND_ALLOW_INSECURE = 'true';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let user: Awaited<ReturnType<typeof signedUpUser>>;
let mcp: TestMcpServer;
let internal: TestMcpServer;

beforeAll(async () => {
  [stack, mcp, internal] = await Promise.all([startTestStack(), startMcpServer(), startMcpServer('127.0.0.2')]);
  user = await signedUpUser(stack);
});
afterAll(async () => {
  await Promise.all([stack.stop(), mcp.stop(), internal.stop()]);
});

// biome-ignore lint/suspicious/noExplicitAny: response bodies are JSON the tests read field by field
type Json = Record<string, any>;
type File = { path: string; content: string };

async function call(method: string, path: string, options: { token?: string; body?: unknown; key?: string | null } = {}) {
  const headers: Record<string, string> = { ...bearer(options.token ?? user.token) };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  if (options.key) headers['Idempotency-Key'] = options.key;
  const response = await fetch(`${stack.url}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : undefined) as Json };
}
const get = (path: string, token?: string) => call('GET', path, { token });
/** POST /v2/harnesses with a fresh Idempotency-Key unless one is given (null: none). */
const post = (body: unknown, options: { token?: string; key?: string | null } = {}) =>
  call('POST', '/v2/harnesses', { body, token: options.token, key: options.key === undefined ? randomUUID() : options.key });

const manifest = (config: Record<string, unknown> = {}): File => ({
  path: 'harness.json',
  content: JSON.stringify({ model: 'local/echo', instructions: 'prompt.md', ...config }, null, 2),
});
const prompt: File = { path: 'prompt.md', content: 'You are a careful assistant.\n' };

async function created(files: File[], name = `harness ${randomUUID().slice(0, 8)}`, token?: string): Promise<Json> {
  const response = await post({ name, files }, { token });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body;
}

/** A problem body without its per-request trace id. */
const comparable = (problem: Json) => ({ ...problem, trace_id: undefined });

describe('POST /v2/harnesses', () => {
  test('201 with id, name, model and created_at; GET returns it with its parsed configuration and files', async () => {
    const before = Date.now();
    const files = [
      manifest({ max_turns: 4, tools: [{ name: 'ask_user', require_approval: true }] }),
      prompt,
      { path: 'docs/notes.md', content: 'ünïcødé 😀 "quoted"\r\n' },
    ];
    const response = await post({ name: '  Support agent ', files });
    assert.equal(response.status, 201, JSON.stringify(response.body));
    const harness = response.body;
    assert.deepEqual(Object.keys(harness).sort(), ['created_at', 'id', 'model', 'name']);
    assert.match(harness.id, /^h_[A-Za-z0-9_-]+$/);
    assert.equal(harness.name, 'Support agent');
    assert.equal(harness.model, 'local/echo');
    assert.ok(Date.parse(harness.created_at) >= before - 1000);

    const fetched = await get(`/v2/harnesses/${harness.id}`);
    assert.equal(fetched.status, 200);
    assert.deepEqual(fetched.body, {
      ...harness,
      config: { model: 'local/echo', instructions: 'prompt.md', tools: [{ name: 'ask_user', require_approval: true }], mcp_servers: [], max_turns: 4 },
      files,
    });
    assert.deepEqual(Object.keys(fetched.body), ['id', 'name', 'model', 'created_at', 'config', 'files']);
    assert.deepEqual(Object.keys(fetched.body.config), ['model', 'instructions', 'tools', 'mcp_servers', 'max_turns']);
  });

  test('files round-trip exactly: a file of 256 KiB of multibyte text and a 1 MiB set that takes several items and Query pages', async () => {
    const kib = 1024;
    // 87381 three-byte characters and one byte: exactly 256 KiB of UTF-8.
    const wide = `${'€'.repeat(87_381)}x`;
    assert.equal(Buffer.byteLength(wide), 256 * kib);
    const escaped = '"\\\n\t'.repeat(64 * kib);
    const files = [
      manifest(),
      prompt,
      { path: 'a/wide.txt', content: wide },
      { path: 'b/escaped.txt', content: escaped },
      { path: 'c/plain.txt', content: 'p'.repeat(256 * kib) },
    ];
    const used = files.reduce((n, f) => n + Buffer.byteLength(f.content), 0);
    files.push({ path: 'd/rest.txt', content: 'r'.repeat(1024 * kib - used) });
    const harness = await created(files);
    const fetched = await get(`/v2/harnesses/${harness.id}`);
    assert.equal(fetched.status, 200);
    assert.deepEqual(fetched.body.files, files);
    // Stored as a head and one item per file, more than one Query page (1 MB) of them.
    const stored: string[] = [];
    let pages = 0;
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await stack.table.db.send(
        new QueryCommand({
          TableName: stack.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': keys.harness(harness.id).pk },
          ProjectionExpression: 'sk',
          ExclusiveStartKey: startKey,
        }),
      );
      stored.push(...(page.Items ?? []).map((i) => i.sk as string));
      startKey = page.LastEvaluatedKey;
      pages++;
    } while (startKey);
    assert.deepEqual(stored.sort(), [...files.map((f) => keys.harnessFile(harness.id, f.path).sk), 'HARNESS'].sort());
    assert.ok(pages > 1, `${pages} pages`);
  });

  test('a harness whose provider is not configured here, or whose instructions are empty, is still created (runs refuse it)', async () => {
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      assert.equal((await created([manifest({ model: 'openai/gpt-4o' }), prompt])).model, 'openai/gpt-4o');
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    }
    await created([manifest(), { path: 'prompt.md', content: '' }]);
  });

  describe('400 harness_files_invalid names every offending path', () => {
    const refused = async (files: unknown[], names: string[]) => {
      const response = await post({ name: 'bad', files });
      assert.equal(response.status, 400, JSON.stringify(response.body));
      assert.equal(response.headers.get('content-type'), 'application/problem+json');
      assert.equal(response.body.code, 'harness_files_invalid');
      assert.equal(response.body.title, 'Bad Request');
      assert.deepEqual(
        response.body.errors.map((e: Json) => e.name),
        names,
      );
      for (const entry of response.body.errors) assert.equal(entry.location, 'body');
      for (const name of names) assert.ok(response.body.detail.includes(name), `${name} in ${response.body.detail}`);
      return response.body;
    };

    const cases: Array<[string, File[], string, string]> = [
      ['a ".." segment', [manifest(), prompt, { path: 'a/../../etc/passwd', content: 'x' }], 'a/../../etc/passwd', 'path_parent_segment'],
      ['a leading "/"', [manifest(), prompt, { path: '/abs.md', content: 'x' }], '/abs.md', 'path_absolute'],
      ['a duplicate', [manifest(), prompt, { path: 'prompt.md', content: 'again' }], 'prompt.md', 'path_duplicate'],
      ['a file over 256 KiB', [manifest(), prompt, { path: 'big.txt', content: 'x'.repeat(256 * 1024 + 1) }], 'big.txt', 'file_too_large'],
      ['binary content', [manifest(), prompt, { path: 'bin', content: '\u0000\u0001' }], 'bin', 'not_text'],
      ['no harness.json', [prompt], 'harness.json', 'harness_json_missing'],
      ['harness.json not JSON', [{ path: 'harness.json', content: '{"model": ' }, prompt], 'harness.json', 'harness_json_invalid'],
      ['instructions naming no file', [manifest({ instructions: 'nope.md' }), prompt], 'harness.json', 'harness_json_invalid'],
      ['a bad server name', [manifest({ mcp_servers: [{ name: 'bad name', url: 'https://x.example/' }] }), prompt], 'harness.json', 'harness_json_invalid'],
      [
        'duplicate server names',
        [
          manifest({
            mcp_servers: [
              { name: 's', url: 'https://x.example/' },
              { name: 's', url: 'https://y.example/' },
            ],
          }),
          prompt,
        ],
        'harness.json',
        'harness_json_invalid',
      ],
      ['max_turns 51', [manifest({ max_turns: 51 }), prompt], 'harness.json', 'harness_json_invalid'],
      ['max_turns 0', [manifest({ max_turns: 0 }), prompt], 'harness.json', 'harness_json_invalid'],
      ['model not <provider>/<model>', [manifest({ model: 'gpt-4o' }), prompt], 'harness.json', 'harness_json_invalid'],
      ['a field harness.json does not have', [manifest({ temperature: 0.2 }), prompt], 'harness.json', 'harness_json_invalid'],
    ];
    for (const [what, files, name, code] of cases) {
      test(what, async () => {
        const body = await refused(files, [name]);
        assert.equal(body.errors[0].code, code);
      });
    }

    test('what is wrong with harness.json is said', async () => {
      const body = await refused([manifest({ max_turns: 51, mcp_servers: [{ name: 'a.b', url: 'https://x.example/' }] }), prompt], ['harness.json']);
      assert.match(body.errors[0].reason, /\/mcp_servers\/0\/name must be 1 to 32 .*\/max_turns must be an integer from 1 to 50/);
      assert.match(body.detail, /"harness\.json": .*max_turns/);
    });

    test('several breaches at once: every one named, each once, nothing stored', async () => {
      const files = [
        { path: 'harness.json', content: JSON.stringify({ model: 'local/echo', instructions: 'missing.md' }) },
        prompt,
        { path: '../up.md', content: 'x' },
        { path: '/root.md', content: 'x' },
        { path: 'twice.md', content: '1' },
        { path: 'twice.md', content: '2' },
        { path: 'huge.md', content: 'h'.repeat(300_000) },
        { path: 'fine.md', content: 'fine' },
      ];
      const before = (await get('/v2/harnesses?limit=100')).body.data.length;
      const body = await refused(files, ['harness.json', '../up.md', '/root.md', 'twice.md', 'huge.md']);
      assert.ok(!body.detail.includes('fine.md'));
      assert.equal((await get('/v2/harnesses?limit=100')).body.data.length, before);
    });

    test('the set: over 100 files, over 1 MiB in all', async () => {
      const many = Array.from({ length: 99 }, (_, i) => ({ path: `f/${i}.md`, content: 'x' }));
      const body = await refused([manifest(), prompt, ...many], ['/files']);
      assert.equal(body.errors[0].code, 'too_many_files');
      const quarter = (n: number) => ({ path: `q${n}`, content: 'q'.repeat(256 * 1024) });
      assert.equal((await refused([manifest(), prompt, quarter(1), quarter(2), quarter(3), quarter(4)], ['/files'])).errors[0].code, 'files_too_large');
    });
  });

  test('the body’s shape follows the usual conventions: not JSON 400, unknown field 400, missing or mistyped fields 422', async () => {
    const notJson = await post('{"name":');
    assert.deepEqual([notJson.status, notJson.body.code], [400, 'invalid_json']);
    const unknown = await post({ name: 'x', files: [manifest(), prompt], version: 2 });
    assert.deepEqual([unknown.status, unknown.body.code, unknown.body.errors[0].name], [400, 'unknown_field', '/version']);
    const unknownInFile = await post({ name: 'x', files: [{ ...prompt, mode: '644' }] });
    assert.deepEqual([unknownInFile.status, unknownInFile.body.errors[0].name], [400, '/files/0/mode']);
    const missing = await post({ name: 'x' });
    assert.deepEqual(
      [missing.status, missing.body.code, missing.body.errors],
      [422, 'validation_failed', [{ name: '/files', location: 'body', reason: 'is required', code: 'required' }]],
    );
    const mistyped = await post({ name: 'x', files: [{ path: 7, content: 'x' }] });
    assert.deepEqual([mistyped.status, mistyped.body.errors[0].name], [422, '/files/0/path']);
    const blank = await post({ name: '  ', files: [manifest(), prompt] });
    assert.deepEqual([blank.status, blank.body.errors[0].name], [422, '/name']);
  });

  describe('Idempotency-Key', () => {
    const body = () => ({ name: `idem ${randomUUID().slice(0, 8)}`, files: [manifest(), prompt] });

    test('required: without it 400 idempotency_key_required, malformed 400 idempotency_key_invalid', async () => {
      const missing = await post(body(), { key: null });
      assert.deepEqual([missing.status, missing.body.code], [400, 'idempotency_key_required']);
      const invalid = await post(body(), { key: 'has space' });
      assert.deepEqual([invalid.status, invalid.body.code], [400, 'idempotency_key_invalid']);
    });

    test('the same key and body is the same harness (replayed, one stored); another body is 409 idempotency_key_conflict', async () => {
      const key = randomUUID();
      const sent = body();
      const first = await post(sent, { key });
      assert.equal(first.status, 201);
      const again = await post(sent, { key });
      assert.equal(again.status, 201);
      assert.equal(again.headers.get('idempotency-replayed'), 'true');
      assert.deepEqual(again.body, first.body);
      const listed = (await get('/v2/harnesses?limit=100')).body.data.filter((h: Json) => h.name === sent.name);
      assert.equal(listed.length, 1);
      const conflict = await post({ ...sent, name: 'another' }, { key });
      assert.deepEqual([conflict.status, conflict.body.code], [409, 'idempotency_key_conflict']);
    });

    test('a refused create leaves no record: the same key with the files fixed creates the harness', async () => {
      const key = randomUUID();
      const bad = await post({ name: 'fix me', files: [prompt] }, { key });
      assert.equal(bad.body.code, 'harness_files_invalid');
      const fixed = await post({ name: 'fix me', files: [manifest(), prompt] }, { key });
      assert.equal(fixed.status, 201, JSON.stringify(fixed.body));
    });
  });
});

describe('GET /v2/harnesses', () => {
  test('newest first, {id, name} entries, paged by cursor; limit defaults to 20', async () => {
    const owner = await signedUpUser(stack);
    const made: Json[] = [];
    for (let i = 0; i < 5; i++) made.push(await created([manifest(), prompt], `h${i}`, owner.token));
    const seen: Json[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await get(`/v2/harnesses?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, owner.token);
      assert.equal(page.status, 200);
      assert.deepEqual(Object.keys(page.body).sort(), ['data', 'page']);
      assert.equal(page.body.page.has_more, page.body.page.next_cursor !== null);
      seen.push(...page.body.data);
      cursor = page.body.page.next_cursor;
      pages++;
    } while (cursor);
    assert.equal(pages, 3);
    assert.deepEqual(seen, made.map(({ id, name }) => ({ id, name })).reverse());
    const all = await get('/v2/harnesses', owner.token);
    assert.equal(all.body.data.length, 5);
    assert.deepEqual(all.body.page, { has_more: false, next_cursor: null });
    const exact = await get('/v2/harnesses?limit=5', owner.token);
    assert.deepEqual(exact.body.page, { has_more: false, next_cursor: null });
    const fresh = await signedUpUser(stack);
    assert.deepEqual((await get('/v2/harnesses', fresh.token)).body, { data: [], page: { has_more: false, next_cursor: null } });
  });

  test('bad parameters and cursors are 400: invalid_parameter, cursor_invalid, cursor_filter_mismatch', async () => {
    const other = await signedUpUser(stack);
    await created([manifest(), prompt], 'a', other.token);
    await created([manifest(), prompt], 'b', other.token);
    const foreign = (await get('/v2/harnesses?limit=1', other.token)).body.page.next_cursor as string;
    assert.ok(foreign);
    const interactions = (await get('/v2/interactions?limit=1')).body.page.next_cursor as string | null;
    const cases: Array<[string, string]> = [
      ['?limit=0', 'invalid_parameter'],
      ['?limit=101', 'invalid_parameter'],
      ['?limit=x', 'invalid_parameter'],
      ['?cursor=garbage', 'cursor_invalid'],
      [`?cursor=${encodeURIComponent(`${foreign}x`)}`, 'cursor_invalid'],
      [`?limit=1&cursor=${encodeURIComponent(foreign)}`, 'cursor_filter_mismatch'],
    ];
    if (interactions) cases.push([`?cursor=${encodeURIComponent(interactions)}`, 'cursor_filter_mismatch']);
    for (const [query, code] of cases) {
      const response = await get(`/v2/harnesses${query}`);
      assert.equal(response.status, 400, query);
      assert.equal(response.body.code, code, query);
      if (code === 'invalid_parameter') assert.deepEqual(response.body.errors[0].name, 'limit');
    }
  });
});

describe('unknown, malformed and foreign harness ids', () => {
  test('answer identical 404 not_found bodies on GET and GET tools', async () => {
    const other = await signedUpUser(stack);
    const foreign = await created([manifest(), prompt], 'theirs', other.token);
    const bodies: Json[] = [];
    for (const id of [newHarnessId(), 'not-a-harness', 'h_%2E%2E', foreign.id]) {
      for (const path of [`/v2/harnesses/${id}`, `/v2/harnesses/${id}/tools`]) {
        const response = await get(path);
        assert.equal(response.status, 404, path);
        assert.equal(response.headers.get('content-type'), 'application/problem+json');
        assert.equal(response.body.code, 'not_found');
        bodies.push(comparable(response.body));
      }
    }
    for (const body of bodies) assert.deepEqual(body, bodies[0]);
    // The owner sees it.
    assert.equal((await get(`/v2/harnesses/${foreign.id}`, other.token)).status, 200);
  });
});

describe('GET /v2/harnesses/{id}/tools', () => {
  test('ask_user, every MCP tool as <server>__<tool> with its approval setting, entries naming no tool unavailable', async () => {
    const harness = await created([
      manifest({
        mcp_servers: [
          { name: 'live', url: mcp.url('/sse') },
          { name: 'json_srv', url: mcp.url('/json') },
        ],
        tools: [
          { name: 'live__echo', require_approval: true },
          { name: 'json_srv__add', require_approval: false },
          { name: 'live__missing', require_approval: true },
          { name: 'ask_user' },
        ],
      }),
      prompt,
    ]);
    const response = await get(`/v2/harnesses/${harness.id}/tools`);
    assert.equal(response.status, 200, JSON.stringify(response.body));
    const tools = response.body.data as Json[];
    assert.deepEqual(
      tools.map(({ name, source, server, require_approval, available }) => ({ name, source, server, require_approval, available })),
      [
        { name: 'ask_user', source: 'builtin', server: undefined, require_approval: false, available: true },
        { name: 'live__echo', source: 'mcp', server: 'live', require_approval: true, available: true },
        { name: 'live__fail', source: 'mcp', server: 'live', require_approval: false, available: true },
        { name: 'live__add', source: 'mcp', server: 'live', require_approval: false, available: true },
        { name: 'json_srv__echo', source: 'mcp', server: 'json_srv', require_approval: false, available: true },
        { name: 'json_srv__fail', source: 'mcp', server: 'json_srv', require_approval: false, available: true },
        { name: 'json_srv__add', source: 'mcp', server: 'json_srv', require_approval: false, available: true },
        { name: 'live__missing', source: 'harness', server: undefined, require_approval: true, available: false },
      ],
    );
    assert.deepEqual(tools[0]!.input_schema.required, ['question']);
    assert.equal(tools[1]!.description, 'Echoes its text.');
    assert.deepEqual(tools[1]!.input_schema.properties, { text: { type: 'string' } });
    assert.deepEqual(Object.keys(tools[7]!).sort(), ['available', 'name', 'require_approval', 'source']);
  });

  test('lists what the server lists now: a stateful server, asked on every call', async () => {
    const harness = await created([manifest({ mcp_servers: [{ name: 'stateful', url: mcp.url('/session') }] }), prompt]);
    const before = mcp.hits.filter((h) => h.path === '/session').length;
    for (let i = 0; i < 2; i++) {
      const response = await get(`/v2/harnesses/${harness.id}/tools`);
      assert.equal(response.status, 200);
      assert.deepEqual(
        response.body.data.map((t: Json) => t.name),
        ['ask_user', 'stateful__echo', 'stateful__fail', 'stateful__add'],
      );
    }
    assert.ok(mcp.hits.filter((h) => h.path === '/session').length >= before + 8, 'each listing asked the server');
  });

  test('without servers: ask_user alone', async () => {
    const harness = await created([manifest(), prompt]);
    assert.deepEqual(
      (await get(`/v2/harnesses/${harness.id}/tools`)).body.data.map((t: Json) => t.name),
      ['ask_user'],
    );
  });

  const failing = async (servers: Array<{ name: string; url: string }>, detail: RegExp) => {
    const harness = await created([manifest({ mcp_servers: [{ name: 'healthy', url: mcp.url('/json') }, ...servers] }), prompt]);
    const response = await get(`/v2/harnesses/${harness.id}/tools`);
    assert.equal(response.status, 502, JSON.stringify(response.body));
    assert.equal(response.headers.get('content-type'), 'application/problem+json');
    assert.equal(response.body.code, 'upstream_unavailable');
    assert.equal(response.body.title, 'Bad Gateway');
    assert.match(response.body.detail, detail);
    assert.ok(!response.body.detail.includes('"healthy"'), response.body.detail);
    return response.body;
  };

  test('an unreachable server is 502 upstream_unavailable naming it', async () => {
    const port = await closedPort();
    await failing([{ name: 'offline', url: `http://127.0.0.1:${port}/mcp` }], /^MCP server "offline" is unreachable or failing: .*ECONNREFUSED/);
  });

  test('a server answering HTTP 500 is 502 naming it', async () => {
    await failing([{ name: 'broken', url: mcp.url('/broken') }], /^MCP server "broken" is unreachable or failing: it answered HTTP 500/);
  });

  test('a server answering something that is not MCP is 502 naming it', async () => {
    await failing([{ name: 'odd', url: mcp.url('/not-mcp') }], /^MCP server "odd" /);
  });

  test('an address the guard refuses is 502 naming the server, and is never contacted', async () => {
    await failing(
      [{ name: 'intranet', url: internal.url('/sse') }],
      /^MCP server "intranet" is unreachable or failing: the outbound address guard refused it: .*127\.0\.0\.2.*loopback/,
    );
    assert.equal(internal.hits.length, 0);
  });

  test('several failing servers: one 502 naming each', async () => {
    const port = await closedPort();
    const body = await failing(
      [
        { name: 'one', url: `http://127.0.0.1:${port}/` },
        { name: 'two', url: mcp.url('/broken') },
      ],
      /^MCP servers "one", "two" are unreachable or failing\./,
    );
    assert.match(body.detail, /MCP server "one" .*MCP server "two" /);
  });
});
