import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import type { HarnessConfig } from '#harnesses/harness-config.js';
import { ASK_USER, harnessTools, TOOLS_LISTING_TIMEOUT_MS, toolCatalog } from '#harnesses/harness-tools.js';
import { runnability } from '#harnesses/runnability.js';
import type { McpServerRef, McpTool } from '#mcp/client.js';
import { McpServerError, UpstreamUnavailableError } from '#mcp/errors.js';

const config = (fields: Partial<HarnessConfig> = {}): HarnessConfig => ({
  model: 'local/echo',
  instructions: 'prompt.md',
  tools: [],
  mcp_servers: [],
  max_turns: 10,
  ...fields,
});
const tool = (name: string, description?: string): McpTool => ({
  name,
  ...(description ? { description } : {}),
  inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
});

describe('toolCatalog', () => {
  test('without servers or entries: ask_user alone, available, no approval', () => {
    assert.deepEqual(toolCatalog(config(), new Map()), [
      {
        name: 'ask_user',
        source: 'builtin',
        require_approval: false,
        available: true,
        description: ASK_USER.description,
        input_schema: {
          type: 'object',
          properties: { question: { type: 'string', description: 'The question, as the person will read it.' } },
          required: ['question'],
          additionalProperties: false,
        },
      },
    ]);
  });

  test('MCP tools as <server>__<tool> in server then listing order, approval from the entries, unknown entries unavailable last', () => {
    const harness = config({
      mcp_servers: [
        { name: 'search', url: 'https://s.example/mcp' },
        { name: 'files', url: 'https://f.example/mcp' },
      ],
      tools: [
        { name: 'files__delete', require_approval: true },
        { name: 'ask_user', require_approval: true },
        { name: 'search__gone', require_approval: true },
        { name: 'shell', require_approval: false },
      ],
    });
    const listed = new Map([
      ['files', [tool('read', 'Reads a file.'), tool('delete')]],
      ['search', [tool('find', 'Finds.')]],
    ]);
    const catalog = toolCatalog(harness, listed);
    assert.deepEqual(
      catalog.map(({ name, source, server, require_approval, available }) => ({ name, source, server, require_approval, available })),
      [
        { name: 'ask_user', source: 'builtin', server: undefined, require_approval: true, available: true },
        { name: 'search__find', source: 'mcp', server: 'search', require_approval: false, available: true },
        { name: 'files__read', source: 'mcp', server: 'files', require_approval: false, available: true },
        { name: 'files__delete', source: 'mcp', server: 'files', require_approval: true, available: true },
        { name: 'search__gone', source: 'harness', server: undefined, require_approval: true, available: false },
        { name: 'shell', source: 'harness', server: undefined, require_approval: false, available: false },
      ],
    );
    assert.equal(catalog[1]!.description, 'Finds.');
    assert.deepEqual(catalog[1]!.input_schema, tool('find').inputSchema);
    assert.equal('description' in catalog[3]!, false);
    for (const entry of catalog.filter((t) => t.source === 'harness')) {
      assert.deepEqual(Object.keys(entry).sort(), ['available', 'name', 'require_approval', 'source']);
    }
  });
});

describe('harnessTools', () => {
  const servers = [
    { name: 'a', url: 'https://a.example/mcp' },
    { name: 'b', url: 'https://b.example/mcp' },
    { name: 'c', url: 'https://c.example/mcp' },
  ];

  test('asks every server at once, each within the listing timeout', async () => {
    const asked: Array<[string, number]> = [];
    let inFlight = 0;
    let most = 0;
    const list = async (server: McpServerRef, options: { timeoutMs: number }) => {
      asked.push([server.name, options.timeoutMs]);
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 10));
      inFlight--;
      return [tool(`t_${server.name}`)];
    };
    const tools = await harnessTools(config({ mcp_servers: servers }), list);
    assert.deepEqual(
      tools.map((t) => t.name),
      ['ask_user', 'a__t_a', 'b__t_b', 'c__t_c'],
    );
    assert.deepEqual(asked, [
      ['a', TOOLS_LISTING_TIMEOUT_MS],
      ['b', TOOLS_LISTING_TIMEOUT_MS],
      ['c', TOOLS_LISTING_TIMEOUT_MS],
    ]);
    assert.equal(most, 3);
  });

  test('one failing server is its own error, naming it', async () => {
    const down = new McpServerError('b', 'unreachable', 'connection refused.');
    const list = async (server: McpServerRef) => {
      if (server.name === 'b') throw down;
      return [];
    };
    await assert.rejects(harnessTools(config({ mcp_servers: servers }), list), (error) => error === down);
  });

  test('several failing servers are one 502 naming each', async () => {
    const list = async (server: McpServerRef) => {
      if (server.name === 'a') return [];
      throw new McpServerError(server.name, 'http_error', 'it answered HTTP 500.');
    };
    await assert.rejects(harnessTools(config({ mcp_servers: servers }), list), (error) => {
      assert.ok(error instanceof UpstreamUnavailableError);
      assert.equal(error.code, 'upstream_unavailable');
      assert.match(error.detail, /^MCP servers "b", "c" are unreachable or failing\. MCP server "b" .* MCP server "c" /);
      return true;
    });
  });

  test('anything but a server failure (a bug) propagates as it is', async () => {
    const bug = new TypeError('boom');
    await assert.rejects(
      harnessTools(config({ mcp_servers: servers }), async () => {
        throw bug;
      }),
      (error) => error === bug,
    );
  });
});

describe('runnability', () => {
  const harness = (model: string, instructions_empty = false) => ({ model, instructions: 'prompt.md', instructions_empty });
  const configured = { local: () => true, openai: () => false, bedrock: () => true };

  test('a configured provider and instructions with text: runnable', () => {
    assert.equal(runnability(harness('local/echo'), configured), undefined);
    assert.equal(runnability(harness('bedrock/anthropic.claude-v2'), configured), undefined);
  });

  test('a provider this service has but is not configured', () => {
    assert.equal(runnability(harness('openai/gpt-4o'), configured), 'the model provider openai is not configured on this service.');
  });

  test('a provider this service does not have', () => {
    assert.equal(runnability(harness('acme/x'), configured), "the model provider of acme/x is not one of this service's (local, openai, bedrock).");
  });

  test('empty instructions, alone or with another reason', () => {
    assert.equal(runnability(harness('local/echo', true), configured), 'the instructions file prompt.md is empty.');
    assert.equal(
      runnability(harness('openai/gpt-4o', true), configured),
      'the model provider openai is not configured on this service; the instructions file prompt.md is empty.',
    );
  });

  test('reads the service configuration by default (lib/models/availability.ts)', () => {
    const saved = process.env.OPENAI_API_KEY;
    const savedFlag = process.env.OPENAI_CONFIGURED;
    try {
      delete process.env.OPENAI_API_KEY;
      delete process.env.OPENAI_CONFIGURED;
      assert.match(runnability(harness('openai/gpt-4o')) ?? '', /not configured/);
      process.env.OPENAI_API_KEY = 'k';
      assert.equal(runnability(harness('openai/gpt-4o')), undefined);
      assert.equal(runnability(harness('local/echo')), undefined);
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
      if (savedFlag === undefined) delete process.env.OPENAI_CONFIGURED;
      else process.env.OPENAI_CONFIGURED = savedFlag;
    }
  });
});
