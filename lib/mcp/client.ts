import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ClientNotification, ClientRequest, ClientResult } from '@modelcontextprotocol/sdk/types.js';
import type { OutboundSettings } from '#net/outbound-settings.js';
import { Failure } from '#platform/failure.js';
import { McpServerError } from './errors.js';
import { guardedTransportFetch } from './guarded-transport-fetch.js';

export { type McpFailureKind, McpServerError, UpstreamUnavailableError } from './errors.js';

/**
 * A small client for the MCP servers of a harness (decisions.md, "Harnesses
 * and machines"), over the official SDK (its protocol layer and streamable
 * HTTP client transport: JSON or SSE answers), every request through the
 * outbound address guard (./guarded-transport-fetch.ts).
 *
 * Each call is one exchange with one deadline: initialize, the request(s),
 * then the session's end (a DELETE when the server gave a session id).
 * `timeoutMs` (default 30 s) and the caller's `signal`, whichever is first,
 * end it. Whatever goes wrong (refused by the guard, connection refused,
 * DNS, an HTTP error status, an answer that is not MCP, a JSON-RPC error, the
 * deadline) is one McpServerError naming the server: 502
 * `upstream_unavailable` at the HTTP edge, the run failure code of the same
 * name in a run. A tool result with `isError: true` is a result, not an error.
 *
 * The SDK (about 175 KB of bundle, zod included) is loaded with `import()`
 * on the first call, so a function that bundles this module but calls no
 * server does not evaluate it at init.
 */

export const DEFAULT_MCP_TIMEOUT_MS = 30_000;
/** listTools follows `nextCursor` at most this many pages. */
export const MAX_TOOL_PAGES = 20;
const CLIENT_INFO = { name: 'workflow-agent-service', version: '1.0.0' };
/** How long the DELETE that ends a session may take before the exchange stops waiting for it. */
const SESSION_END_MS = 1_000;
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export interface McpServerRef {
  /** The harness's name for it (1-32 of `[a-zA-Z0-9_-]`): how errors name it. */
  name: string;
  url: string;
}

export interface McpCallOptions {
  /** The whole exchange's deadline; default 30 s. */
  timeoutMs?: number;
  /** The caller's own end (a cancelled run): the exchange stops at once. */
  signal?: AbortSignal;
  /** The operator's outbound settings; default read from the environment on each request. */
  settings?: OutboundSettings;
}

export interface McpTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

export interface McpToolResult {
  /** The MCP content blocks as the server sent them. */
  content: Array<Record<string, unknown>>;
  /** The text blocks joined by newlines (what a model reads as the tool result). */
  text: string;
  isError: boolean;
  structuredContent?: Record<string, unknown>;
}

/** A connected exchange with one server: what `withMcpSession` hands its callback. */
export interface McpSession {
  listTools(cursor: string | undefined): Promise<{ tools: McpTool[]; nextCursor?: string }>;
  callTool(name: string, args: Record<string, unknown>): Promise<{ content: unknown[]; isError?: boolean; structuredContent?: Record<string, unknown> }>;
}

type RequestOptions = { signal: AbortSignal; timeout: number };
type Transport = StreamableHTTPClientTransport;

/**
 * The SDK's parts this client uses: its JSON-RPC `Protocol` (request and
 * response matching, timeouts, cancellation), the streamable HTTP client
 * transport and the message schemas. The SDK's `Client` class is not used:
 * it always builds an Ajv JSON Schema validator (for tools' output schemas,
 * which this client does not check), and Ajv is 130 KB of every bundle that
 * holds it. `ToolsClient` does what `Client.connect` does for a client with
 * no capabilities: `initialize`, the protocol version check, the transport's
 * protocol version header, `notifications/initialized`.
 */
async function importSdk() {
  const [{ Protocol }, { StreamableHTTPClientTransport, StreamableHTTPError }, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/shared/protocol.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);

  class ToolsClient extends Protocol<ClientRequest, ClientNotification, ClientResult> implements McpSession {
    constructor(private readonly options: RequestOptions) {
      super();
    }

    // A client that declares no capabilities and sends only these requests has nothing to assert.
    protected assertCapabilityForMethod(): void {}
    protected assertNotificationCapability(): void {}
    protected assertRequestHandlerCapability(): void {}
    protected assertTaskCapability(): void {}
    protected assertTaskHandlerCapability(): void {}

    async open(transport: Transport): Promise<void> {
      await this.connect(transport);
      const params = { protocolVersion: types.LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO };
      const result = await this.request({ method: 'initialize', params }, types.InitializeResultSchema, this.options);
      if (!types.SUPPORTED_PROTOCOL_VERSIONS.includes(result.protocolVersion)) {
        throw new Error(`it speaks MCP ${result.protocolVersion}, which this client does not`);
      }
      transport.setProtocolVersion(result.protocolVersion);
      await this.notification({ method: 'notifications/initialized' });
    }

    listTools(cursor: string | undefined) {
      return this.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, types.ListToolsResultSchema, this.options);
    }

    callTool(name: string, args: Record<string, unknown>) {
      return this.request({ method: 'tools/call', params: { name, arguments: args } }, types.CallToolResultSchema, this.options);
    }
  }

  return {
    ToolsClient,
    Transport: StreamableHTTPClientTransport,
    HttpError: StreamableHTTPError,
    RpcError: types.McpError,
    TIMEOUT_CODE: types.ErrorCode.RequestTimeout as number,
  };
}

type Sdk = Awaited<ReturnType<typeof importSdk>>;
let sdk: Promise<Sdk> | undefined;
/** The SDK, imported on the first call (bundled, but not evaluated at init); the bench measures what that costs. */
export const loadMcpSdk = (): Promise<Sdk> => (sdk ??= importSdk());

const GUARD_REFUSALS = new Set(['ssrf_blocked', 'insecure_url', 'invalid_url', 'invalid_request']);

/** The one error a failed exchange becomes. */
function serverError(
  server: McpServerRef,
  error: unknown,
  loaded: Sdk | undefined,
  ended: 'timeout' | 'cancelled' | undefined,
  timeoutMs: number,
): McpServerError {
  if (error instanceof McpServerError) return error;
  const options = { cause: error };
  if (ended === 'timeout') return new McpServerError(server.name, 'timeout', `no answer within ${timeoutMs} ms.`, options);
  if (ended === 'cancelled') return new McpServerError(server.name, 'cancelled', 'the call was cancelled.', options);
  if (error instanceof Failure) {
    if (GUARD_REFUSALS.has(error.code)) return new McpServerError(server.name, 'refused', `the outbound address guard refused it: ${error.message}`, options);
    if (error.code === 'timeout') return new McpServerError(server.name, 'timeout', error.message, options);
    if (error.code === 'network_error') return new McpServerError(server.name, 'unreachable', error.message, options);
    return new McpServerError(server.name, 'protocol_error', error.message, options);
  }
  if (loaded && error instanceof loaded.HttpError) {
    const status = typeof error.code === 'number' && error.code > 0 ? `HTTP ${error.code}` : 'an unexpected answer';
    return new McpServerError(server.name, 'http_error', `it answered ${status}.`, options);
  }
  if (loaded && error instanceof loaded.RpcError) {
    if (error.code === loaded.TIMEOUT_CODE) return new McpServerError(server.name, 'timeout', `no answer within ${timeoutMs} ms.`, options);
    return new McpServerError(server.name, 'rpc_error', `it answered a JSON-RPC error (${error.message}).`, options);
  }
  // A zod error (a message that is not JSON-RPC) says nothing a person could use; other errors say what broke.
  const message = error instanceof Error && error.name !== 'ZodError' ? error.message.split('\n')[0]!.slice(0, 300) : '';
  return new McpServerError(server.name, 'protocol_error', `its answer is not a valid MCP answer${message ? ` (${message})` : ''}.`, options);
}

/**
 * Runs `use` on a session with the server within one deadline, then ends
 * the session. Every failure is a McpServerError naming the server.
 */
export async function withMcpSession<T>(server: McpServerRef, options: McpCallOptions, use: (session: McpSession) => Promise<T>): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS;
  const deadline = new AbortController();
  let ended: 'timeout' | 'cancelled' | undefined;
  const end = (why: 'timeout' | 'cancelled') => () => {
    ended ??= why;
    deadline.abort();
  };
  const timer = setTimeout(end('timeout'), timeoutMs);
  const onCancel = end('cancelled');
  options.signal?.addEventListener('abort', onCancel, { once: true });
  if (options.signal?.aborted) onCancel();
  let loaded: Sdk | undefined;
  let client: InstanceType<Sdk['ToolsClient']> | undefined;
  let transport: Transport | undefined;
  try {
    let url: URL;
    try {
      url = new URL(server.url);
    } catch (error) {
      throw new McpServerError(server.name, 'refused', 'its url is not a valid absolute URL.', { cause: error });
    }
    loaded = await loadMcpSdk();
    if (deadline.signal.aborted) throw new Error('ended before it began');
    const fetch = guardedTransportFetch({ signal: deadline.signal, timeoutMs, settings: options.settings });
    transport = new loaded.Transport(url, { fetch, redirectPolicy: 'follow', reconnectionOptions: NO_RECONNECTION });
    client = new loaded.ToolsClient({ signal: deadline.signal, timeout: timeoutMs });
    await client.open(transport);
    return await use(client);
  } catch (error) {
    throw serverError(server, error, loaded, ended, timeoutMs);
  } finally {
    // Ends the server's session (when it gave one) politely, for a moment at most; closing aborts what is left.
    if (transport?.sessionId && !deadline.signal.aborted) await Promise.race([transport.terminateSession().catch(() => undefined), delay(SESSION_END_MS)]);
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onCancel);
    await client?.close().catch(() => undefined);
  }
}

/** The SSE reconnection of the SDK is for long-lived streams; an exchange here either gets its answer or fails. */
const NO_RECONNECTION = { initialReconnectionDelay: 0, maxReconnectionDelay: 0, reconnectionDelayGrowFactor: 1, maxRetries: 0 };

/** Every tool the server lists now (following `nextCursor`), in its order. */
export function listTools(server: McpServerRef, options: McpCallOptions = {}): Promise<McpTool[]> {
  return withMcpSession(server, options, async (session) => {
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    for (let page = 1; ; page++) {
      const listed = await session.listTools(cursor);
      for (const tool of listed.tools) {
        tools.push({ name: tool.name, ...(tool.description === undefined ? {} : { description: tool.description }), inputSchema: tool.inputSchema });
      }
      if (!listed.nextCursor) return tools;
      if (page >= MAX_TOOL_PAGES || listed.nextCursor === cursor) throw new Error(`its tool list goes on past ${page} pages`);
      cursor = listed.nextCursor;
    }
  });
}

/** Calls one tool. A result with `isError: true` is returned, not thrown: the model sees it. */
export function callTool(server: McpServerRef, name: string, args: Record<string, unknown>, options: McpCallOptions = {}): Promise<McpToolResult> {
  return withMcpSession(server, options, async (session) => {
    const result = await session.callTool(name, args);
    const content = result.content as Array<Record<string, unknown>>;
    const text = content
      .filter((block) => block.type === 'text' && typeof block.text === 'string')
      .map((block) => block.text as string)
      .join('\n');
    const structured = result.structuredContent;
    return { content, text, isError: result.isError === true, ...(structured === undefined ? {} : { structuredContent: structured }) };
  });
}
