import assert from 'node:assert/strict';
import { cruise, type IModule } from 'dependency-cruiser';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { callTool, listTools, type McpFailureKind, McpServerError, withMcpSession } from '#mcp/client.js';
import { parseAllowList } from '#net/address-guard.js';
import type { OutboundSettings } from '#net/outbound-settings.js';
import { closedPort, startMcpServer, TEST_TOOLS, type TestMcpServer } from '../helpers/mcp-server.js';

// The test servers listen on 127.0.0.1 over plain http: allowed here, as an operator would with
// OUTBOUND_ALLOWED_HOSTS and OUTBOUND_ALLOW_INSECURE. A second server on 127.0.0.2 is not allowed.
const settings: OutboundSettings = { allowInsecure: true, ...parseAllowList('127.0.0.1') };
let server: TestMcpServer;
let refusedServer: TestMcpServer;

beforeAll(async () => {
  server = await startMcpServer();
  refusedServer = await startMcpServer('127.0.0.2');
});
afterAll(async () => {
  await server.stop();
  await refusedServer.stop();
});

const at = (path: string, name = 'tools') => ({ name, url: server.url(path) });

/** The McpServerError a call fails with. */
async function failure(call: Promise<unknown>): Promise<McpServerError> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof McpServerError, String(error));
    return error;
  }
  assert.fail('the call succeeded');
}

/** It is a 502 upstream_unavailable naming the server, of this kind. */
function assertServerError(error: McpServerError, name: string, kind: McpFailureKind, detail?: RegExp) {
  assert.equal(error.code, 'upstream_unavailable');
  assert.equal(error.kind, 'upstream_failed');
  assert.equal(error.server, name);
  assert.equal(error.failure, kind, error.detail);
  assert.ok(error.detail.startsWith(`MCP server "${name}" is unreachable or failing: `), error.detail);
  if (detail) assert.match(error.detail, detail);
}

describe('listTools', () => {
  for (const [path, answers] of [
    ['/sse', 'SSE'],
    ['/json', 'JSON'],
  ] as const) {
    test(`every tool with its description and input schema, from a stateless server answering ${answers}`, async () => {
      const tools = await listTools(at(path), { settings });
      assert.deepEqual(
        tools.map((t) => t.name),
        TEST_TOOLS,
      );
      const echo = tools[0]!;
      assert.equal(echo.description, 'Echoes its text.');
      assert.deepEqual(echo.inputSchema.properties, { text: { type: 'string' } });
      assert.deepEqual(echo.inputSchema.required, ['text']);
      assert.equal('description' in tools[2]!, false);
    });
  }

  test('a stateful server: the session it gives is used, then ended with DELETE', async () => {
    const before = server.hits.length;
    assert.deepEqual(
      (await listTools(at('/session'), { settings })).map((t) => t.name),
      TEST_TOOLS,
    );
    const hits = server.hits.slice(before);
    assert.deepEqual(
      hits.map((h) => h.method),
      ['POST', 'POST', 'POST', 'DELETE'],
    );
    const session = hits[1]!.session;
    assert.ok(session);
    assert.ok(hits.slice(1).every((h) => h.session === session));
    assert.ok(server.ended.includes(session));
  });

  test('follows nextCursor through every page', async () => {
    assert.deepEqual(
      (await listTools(at('/paged'), { settings })).map((t) => t.name),
      ['p1', 'p2', 'p3', 'p4'],
    );
  });

  test('never opens the standalone GET stream', async () => {
    const before = server.hits.length;
    await listTools(at('/sse'), { settings });
    assert.ok(server.hits.slice(before).every((h) => h.method === 'POST'));
  });
});

describe('callTool', () => {
  test('answers its text and content blocks (SSE answers)', async () => {
    assert.deepEqual(await callTool(at('/sse'), 'echo', { text: 'hello' }, { settings }), {
      content: [{ type: 'text', text: 'echo: hello' }],
      text: 'echo: hello',
      isError: false,
    });
  });

  test('structured content is kept (JSON answers, stateful server)', async () => {
    for (const path of ['/json', '/session']) {
      const result = await callTool(at(path), 'add', { a: 2, b: 40 }, { settings });
      assert.deepEqual([result.text, result.structuredContent, result.isError], ['42', { sum: 42 }, false], path);
    }
  });

  test('isError: true is a result, not a failure; so is an unknown tool the server reports that way', async () => {
    const failed = await callTool(at('/sse'), 'fail', {}, { settings });
    assert.deepEqual([failed.isError, failed.text], [true, 'it failed']);
    const unknown = await callTool(at('/json'), 'no_such_tool', {}, { settings });
    assert.equal(unknown.isError, true);
    assert.match(unknown.text, /no_such_tool/);
  });

  test('a JSON-RPC error answer is a failure naming the server', async () => {
    // The paged server has no tools/call handler: it answers "method not found".
    assertServerError(await failure(callTool(at('/paged', 'pager'), 'p1', {}, { settings })), 'pager', 'rpc_error', /JSON-RPC error/);
  });

  test('a session can make several requests before it ends', async () => {
    const texts = await withMcpSession(at('/session'), { settings }, async (session) => [
      (await session.callTool('echo', { text: 'one' })).content,
      (await session.callTool('echo', { text: 'two' })).content,
    ]);
    assert.deepEqual(texts, [[{ type: 'text', text: 'echo: one' }], [{ type: 'text', text: 'echo: two' }]]);
  });
});

describe('failures: one McpServerError naming the server', () => {
  test('connection refused', async () => {
    const port = await closedPort();
    assertServerError(await failure(listTools({ name: 'gone', url: `http://127.0.0.1:${port}/mcp` }, { settings })), 'gone', 'unreachable', /ECONNREFUSED/);
  });

  test('an unresolvable host', async () => {
    assertServerError(await failure(listTools({ name: 'nxdomain', url: 'https://no-such-host.invalid/mcp' }, { settings })), 'nxdomain', 'unreachable');
  });

  test('HTTP 500', async () => {
    assertServerError(await failure(listTools(at('/broken', 'broken'), { settings })), 'broken', 'http_error', /HTTP 500/);
    assertServerError(await failure(callTool(at('/broken', 'broken'), 'echo', {}, { settings })), 'broken', 'http_error', /HTTP 500/);
  });

  test('an answer that is not MCP', async () => {
    assertServerError(await failure(listTools(at('/not-mcp', 'odd'), { settings })), 'odd', 'protocol_error', /not a valid MCP answer/);
  });

  test('no answer within the timeout', async () => {
    const started = Date.now();
    assertServerError(await failure(listTools(at('/hang', 'slow'), { settings, timeoutMs: 300 })), 'slow', 'timeout', /within 300 ms/);
    assert.ok(Date.now() - started < 2000);
  });

  test("the caller's signal ends the exchange at once", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    assertServerError(await failure(callTool(at('/hang', 'slow'), 'echo', { text: 'x' }, { settings, signal: controller.signal })), 'slow', 'cancelled');
    assert.ok(Date.now() - started < 2000);
    const already = AbortSignal.abort();
    const before = server.hits.length;
    assertServerError(await failure(listTools(at('/sse'), { settings, signal: already })), 'tools', 'cancelled');
    assert.equal(server.hits.length, before, 'an exchange cancelled before it began sends nothing');
  });

  test('a non-public address the guard refuses is never contacted', async () => {
    const error = await failure(listTools({ name: 'internal', url: refusedServer.url('/sse') }, { settings }));
    assertServerError(error, 'internal', 'refused', /127\.0\.0\.2.*loopback/);
    assert.equal(refusedServer.hits.length, 0);
  });

  test('http: is refused unless the operator allows it, and so is a loopback address by default', async () => {
    const httpsOnly = { ...settings, allowInsecure: false };
    const before = server.hits.length;
    assertServerError(await failure(listTools(at('/sse'), { settings: httpsOnly })), 'tools', 'refused', /plain http/);
    assertServerError(await failure(listTools(at('/sse'), { settings: { allowInsecure: true, ...parseAllowList('') } })), 'tools', 'refused', /loopback/);
    assert.equal(server.hits.length, before);
  });

  test('a url that is not one', async () => {
    assertServerError(await failure(listTools({ name: 'bad', url: 'not a url' }, { settings })), 'bad', 'refused', /not a valid absolute URL/);
  });
});

test('the SDK is loaded on first use, not when a function that bundles this client starts', async () => {
  // Resolved as the dependency check resolves (.dependency-cruiser.cjs), so that type-only imports of the SDK are told apart.
  const resolve = { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js'] };
  const options = { tsPreCompilationDeps: true, doNotFollow: { path: 'node_modules' }, enhancedResolveOptions: resolve };
  const result = await cruise(['functions/harnesses/tools.ts'], options, undefined, { tsConfig: { fileName: 'tsconfig.json' } });
  const modules = new Map((result.output as { modules: IModule[] }).modules.map((m) => [m.source, m]));
  const seen = new Set<string>();
  const visit = (source: string) => {
    if (seen.has(source)) return;
    seen.add(source);
    for (const d of modules.get(source)?.dependencies ?? []) if (!d.dynamic && !d.dependencyTypes.includes('type-only')) visit(d.resolved);
  };
  visit('functions/harnesses/tools.ts');
  assert.ok(seen.has('lib/mcp/client.ts'), 'the tools handler bundles the client');
  assert.deepEqual(
    [...seen].filter((path) => path.includes('@modelcontextprotocol')),
    [],
  );
  const client = modules.get('lib/mcp/client.ts')!;
  assert.ok(client.dependencies.some((d) => d.dynamic && d.module.startsWith('@modelcontextprotocol/sdk/')));
  assert.ok(client.dependencies.some((d) => !d.dynamic && d.dependencyTypes.includes('type-only') && d.module.startsWith('@modelcontextprotocol/sdk/')));
});
