import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server as LowLevelServer } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

/**
 * A real MCP server for the tests, built with the same SDK the service's
 * client uses (McpServer + StreamableHTTPServerTransport on node:http). Paths:
 *
 * - `/sse`: stateless, answers as SSE streams (the transport's default);
 * - `/json`: stateless, answers as JSON (`enableJsonResponse`);
 * - `/session`: stateful, a session id per client, ended by DELETE;
 * - `/paged`: a low-level server listing its tools three pages long;
 * - `/broken`: HTTP 500 to everything; `/not-mcp`: 200 JSON that is no JSON-RPC;
 * - `/hang`: never answers;
 * - `/flaky`: stateless JSON, one tool `record {text}` answering `recorded: <text>`,
 *   that records every call it receives and can be broken for some texts
 *   (`flaky.failing`: those calls answer HTTP 500, so a run making one fails), then fixed.
 *
 * Tools: `echo {text}` answers `echo: <text>`; `fail` answers `isError: true`;
 * `add {a, b}` answers the sum as text and as structured content.
 */
export interface TestMcpServer {
  /** `http://<host>:<port>` */
  base: string;
  url: (path: string) => string;
  /** Every request received, in order. */
  hits: Array<{ method: string; path: string; session?: string }>;
  /** Session ids ended by DELETE. */
  ended: string[];
  /**
   * The `slow` tool of `/slow`: it answers once released (each call started
   * counts; `aborted` counts requests the client closed before an answer).
   * `rearm` resets the counts and holds later calls again.
   */
  slow: { calls: number; aborted: number; release(): void; rearm(): void };
  /** `/flaky`: the `text` of every `record` call received, in order (those answered 500 too); calls whose text is in `failing` answer 500. */
  flaky: { calls: string[]; failing: Set<string> };
  stop: () => Promise<void>;
}

export const TEST_TOOLS = ['echo', 'fail', 'add'];

function toolServer(): McpServer {
  const server = new McpServer({ name: 'test-tools', version: '1.0.0' });
  server.registerTool('echo', { description: 'Echoes its text.', inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text: `echo: ${text}` }],
  }));
  server.registerTool('fail', { description: 'Always fails.' }, async () => ({ content: [{ type: 'text', text: 'it failed' }], isError: true }));
  server.registerTool('add', { inputSchema: { a: z.number(), b: z.number() }, outputSchema: { sum: z.number() } }, async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
    structuredContent: { sum: a + b },
  }));
  return server;
}

function pagedServer(): LowLevelServer {
  const server = new LowLevelServer({ name: 'paged', version: '1.0.0' }, { capabilities: { tools: {} } });
  const pages = [['p1', 'p2'], ['p3'], ['p4']];
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const index = Number(request.params?.cursor ?? 0);
    const tools = pages[index]!.map((name) => ({ name, inputSchema: { type: 'object' as const, properties: {} } }));
    return index + 1 < pages.length ? { tools, nextCursor: String(index + 1) } : { tools };
  });
  return server;
}

/** `/slow`: a `slow` tool that answers `done: <text>` only once the test releases it, so a run can be caught mid-call. */
function slowServer(slow: { calls: number; gate: Promise<void> }): McpServer {
  const server = new McpServer({ name: 'slow-tools', version: '1.0.0' });
  server.registerTool('slow', { description: 'Answers when released.', inputSchema: { text: z.string() } }, async ({ text }) => {
    slow.calls++;
    await slow.gate;
    return { content: [{ type: 'text', text: `done: ${text}` }] };
  });
  return server;
}

/** `/flaky`: a `record` tool that answers what it was sent. */
function flakyServer(): McpServer {
  const server = new McpServer({ name: 'flaky-tools', version: '1.0.0' });
  server.registerTool('record', { description: 'Records its text.', inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text: `recorded: ${text}` }],
  }));
  return server;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

export async function startMcpServer(host = '127.0.0.1', port = 0): Promise<TestMcpServer> {
  const hits: TestMcpServer['hits'] = [];
  const ended: string[] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const hanging = new Set<ServerResponse>();
  let release = () => {};
  const slow = { calls: 0, aborted: 0, gate: Promise.resolve() };
  const flaky = { calls: [] as string[], failing: new Set<string>() };
  const rearm = () => {
    slow.calls = 0;
    slow.aborted = 0;
    slow.gate = new Promise<void>((resolve) => {
      release = resolve;
    });
  };
  rearm();

  async function stateless(req: IncomingMessage, res: ServerResponse, body: unknown, json: boolean, build: () => McpServer | LowLevelServer) {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: json });
    const server = build();
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  async function stateful(req: IncomingMessage, res: ServerResponse, body: unknown) {
    const id = req.headers['mcp-session-id'] as string | undefined;
    let transport = id ? sessions.get(id) : undefined;
    if (!transport) {
      if (id) {
        res.writeHead(404).end();
        return;
      }
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => {
          sessions.set(sessionId, created);
        },
        onsessionclosed: (sessionId) => {
          ended.push(sessionId);
          sessions.delete(sessionId);
        },
      });
      transport = created;
      await toolServer().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  }

  const http: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.push({ method: req.method ?? '', path, session: req.headers['mcp-session-id'] as string | undefined });
    (async () => {
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      if (path === '/sse') await stateless(req, res, body, false, toolServer);
      else if (path === '/json') await stateless(req, res, body, true, toolServer);
      else if (path === '/slow') {
        res.on('close', () => {
          if (!res.writableFinished) slow.aborted++;
        });
        await stateless(req, res, body, true, () => slowServer(slow));
      } else if (path === '/flaky') {
        const call = body as { method?: string; params?: { arguments?: { text?: unknown } } } | undefined;
        const text = String(call?.params?.arguments?.text);
        if (call?.method === 'tools/call') flaky.calls.push(text);
        if (call?.method === 'tools/call' && flaky.failing.has(text)) res.writeHead(500, { 'Content-Type': 'text/plain' }).end('down');
        else await stateless(req, res, body, true, flakyServer);
      } else if (path === '/paged') await stateless(req, res, body, true, pagedServer);
      else if (path === '/session') await stateful(req, res, body);
      else if (path === '/broken') res.writeHead(500, { 'Content-Type': 'text/plain' }).end('down');
      else if (path === '/not-mcp') res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"hello":"world"}');
      else if (path === '/hang') hanging.add(res);
      else res.writeHead(404).end();
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => http.listen(port, host, resolve));
  const base = `http://${host}:${(http.address() as AddressInfo).port}`;
  return {
    base,
    url: (path) => `${base}${path}`,
    hits,
    ended,
    slow: {
      get calls() {
        return slow.calls;
      },
      get aborted() {
        return slow.aborted;
      },
      release: () => release(),
      rearm,
    },
    flaky,
    stop: async () => {
      for (const transport of sessions.values()) await transport.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

/** A port nothing listens on (bound, then closed): connecting is refused. */
export async function closedPort(host = '127.0.0.1'): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
