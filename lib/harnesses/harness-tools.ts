import type { McpServerRef, McpTool } from '#mcp/client.js';
import { McpServerError, UpstreamUnavailableError } from '#mcp/errors.js';
import type { HarnessConfig } from './harness-config.js';

/**
 * The tools a run of a harness has (decisions.md, "Harnesses and machines"):
 * the built-in `ask_user`, then every tool each MCP server lists, offered as
 * `<server name>__<tool name>` in the harness's server order and each
 * server's own order, each with the `require_approval` of the harness.json
 * `tools` entry that names it; then every `tools` entry that names no such
 * tool, listed with `source: "harness"` and `available: false` (the model is
 * not offered it). A pure catalog (`toolCatalog`) over the servers' lists,
 * and `harnessTools`, which asks every server now.
 */

export interface ToolView {
  name: string;
  source: 'builtin' | 'harness' | 'mcp';
  server?: string;
  require_approval: boolean;
  available: boolean;
  description?: string;
  input_schema?: Record<string, unknown>;
}

export const ASK_USER: Readonly<Required<Pick<ToolView, 'name' | 'description' | 'input_schema'>>> = {
  name: 'ask_user',
  description: 'Asks the person the run works for a question and waits for the answer, which is the result.',
  input_schema: {
    type: 'object',
    properties: { question: { type: 'string', description: 'The question, as the person will read it.' } },
    required: ['question'],
    additionalProperties: false,
  },
};

/** How a model is offered an MCP tool. */
export const offeredName = (server: string, tool: string): string => `${server}__${tool}`;

/** Each server's listed tools have been read, in the harness's server order. */
export function toolCatalog(config: Pick<HarnessConfig, 'tools' | 'mcp_servers'>, listed: ReadonlyMap<string, readonly McpTool[]>): ToolView[] {
  const entries = new Map(config.tools.map((entry) => [entry.name, entry]));
  const used = new Set<string>();
  const approval = (name: string) => {
    used.add(name);
    return entries.get(name)?.require_approval ?? false;
  };
  const tools: ToolView[] = [{ ...ASK_USER, source: 'builtin', require_approval: approval(ASK_USER.name), available: true }];
  for (const server of config.mcp_servers) {
    for (const tool of listed.get(server.name) ?? []) {
      const name = offeredName(server.name, tool.name);
      tools.push({
        name,
        source: 'mcp',
        server: server.name,
        require_approval: approval(name),
        available: true,
        ...(tool.description === undefined ? {} : { description: tool.description }),
        input_schema: tool.inputSchema,
      });
    }
  }
  for (const entry of config.tools) {
    if (!used.has(entry.name)) tools.push({ name: entry.name, source: 'harness', require_approval: entry.require_approval, available: false });
  }
  return tools;
}

/** How long listing one server's tools may take; the servers are asked at once, within the API function's 29 s. */
export const TOOLS_LISTING_TIMEOUT_MS = 10_000;

export type ListServerTools = (server: McpServerRef, options: { timeoutMs: number }) => Promise<McpTool[]>;

/**
 * Asks every MCP server of the harness for its tools now and catalogs them.
 * A server that is unreachable or failing is an McpServerError naming it
 * (502 `upstream_unavailable`); when several fail, one error names them all.
 */
export async function harnessTools(config: Pick<HarnessConfig, 'tools' | 'mcp_servers'>, list: ListServerTools): Promise<ToolView[]> {
  const settled = await Promise.allSettled(config.mcp_servers.map((server) => list(server, { timeoutMs: TOOLS_LISTING_TIMEOUT_MS })));
  const failures = settled.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
  const unexpected = failures.find((error) => !(error instanceof McpServerError));
  if (unexpected !== undefined) throw unexpected;
  const failed = failures as McpServerError[];
  if (failed.length === 1) throw failed[0];
  if (failed.length > 1) {
    const names = failed.map((error) => JSON.stringify(error.server)).join(', ');
    throw new UpstreamUnavailableError(`MCP servers ${names} are unreachable or failing. ${failed.map((error) => error.detail).join(' ')}`, { cause: failed });
  }
  const listed = new Map(config.mcp_servers.map((server, index) => [server.name, (settled[index] as PromiseFulfilledResult<McpTool[]>).value]));
  return toolCatalog(config, listed);
}
