import { ASK_USER, type ToolView, toolCatalog } from '#harnesses/index.js';
import { type Interaction, type InteractionsService, statusAt } from '#interactions/index.js';
import type { McpServerRef, McpTool, McpToolResult } from '#mcp/client.js';
import type { ToolCall, ToolSpec } from '#models/types.js';
import { nameBasedUuid } from '#platform/uuid.js';
import type { Run, RunHarness } from './model.js';
import { clipText } from './steps.js';

/**
 * The tools of a run and what calling one does (decisions.md, Harnesses and
 * machines): `ask_user` asks the person and waits for the answer; a tool
 * with `require_approval` waits for an approval first (denied: the model is
 * told so and goes on); an MCP tool is called on its server, whose
 * failure fails the run (`upstream_unavailable`) while a result with
 * `isError` is an ordinary result.
 */

export interface RunMcp {
  listTools(server: McpServerRef, options: { timeoutMs?: number; signal?: AbortSignal }): Promise<McpTool[]>;
  callTool(server: McpServerRef, name: string, args: Record<string, unknown>, options: { timeoutMs?: number; signal?: AbortSignal }): Promise<McpToolResult>;
}

interface OfferedTool {
  view: ToolView;
  /** Where an MCP tool is called, under its own name. */
  server?: McpServerRef;
  toolName?: string;
}

export interface OfferedTools {
  /** What the model is offered. */
  offered: ToolSpec[];
  byName: Map<string, OfferedTool>;
}

/** Asks every MCP server of the harness for its tools (an McpServerError when one fails) and catalogs them. */
export async function offeredTools(mcp: Pick<RunMcp, 'listTools'>, harness: Pick<RunHarness, 'tools' | 'mcp_servers'>): Promise<OfferedTools> {
  const listed = new Map(await Promise.all(harness.mcp_servers.map(async (server) => [server.name, await mcp.listTools(server, {})] as const)));
  const byName = new Map<string, OfferedTool>();
  const offered: ToolSpec[] = [];
  for (const view of toolCatalog(harness, listed)) {
    if (!view.available) continue;
    const server = view.server === undefined ? undefined : harness.mcp_servers.find((s) => s.name === view.server);
    byName.set(view.name, { view, ...(server ? { server, toolName: view.name.slice(server.name.length + 2) } : {}) });
    offered.push({ name: view.name, ...(view.description === undefined ? {} : { description: view.description }), input_schema: view.input_schema ?? {} });
  }
  return { offered, byName };
}

export interface Asked {
  id: string;
  type: 'approval' | 'answer';
  status: Interaction['status'];
  response: Interaction['response'];
  expires_at: string | null;
  turn: number;
  call: number;
}

/**
 * The interaction of one call (`turn`, `call`) of a run, opened the first
 * time it is asked for: its id is derived from the run and the call, so a
 * worker that replays the call finds the same one.
 */
export async function askFor(
  deps: { interactions: InteractionsService; interactionTimeoutSeconds: number; now(): Date },
  run: Pick<Run, 'id' | 'account_id'>,
  ask: { turn: number; call: number; type: 'approval' | 'answer'; prompt: string },
): Promise<Asked> {
  const id = nameBasedUuid(`${run.id}/${ask.turn}/${ask.call}/${ask.type}`);
  const now = deps.now();
  const interaction =
    (await deps.interactions.get(id)) ??
    (await deps.interactions.createOnce({
      id,
      type: ask.type,
      status: 'pending',
      prompt: ask.prompt,
      run_id: run.id,
      workflow_request_id: null,
      node_execution_id: null,
      node_id: null,
      response: null,
      created_at: now.toISOString(),
      resolved_at: null,
      expires_at: new Date(now.getTime() + deps.interactionTimeoutSeconds * 1000).toISOString(),
      account_id: run.account_id,
    }));
  return { ...interaction, status: statusAt(interaction, now), turn: ask.turn, call: ask.call };
}

export type ToolOutcome =
  | { kind: 'result'; result: { text: string; is_error: boolean; denied?: true } }
  | { kind: 'wait'; interaction: Asked }
  | { kind: 'expired'; interaction: Asked }
  | { kind: 'cancelled' };

const result = (text: string, isError: boolean, denied?: true): ToolOutcome => ({
  kind: 'result',
  result: { text, is_error: isError, ...(denied ? { denied } : {}) },
});

/** What an interaction that is not answered yet means for its call. */
const unanswered = (asked: Asked): ToolOutcome | undefined =>
  asked.status === 'pending'
    ? { kind: 'wait', interaction: asked }
    : asked.status === 'expired'
      ? { kind: 'expired', interaction: asked }
      : asked.status === 'cancelled'
        ? { kind: 'cancelled' }
        : undefined;

export interface ToolContext {
  tools: OfferedTools;
  mcp: Pick<RunMcp, 'callTool'>;
  ask(type: 'approval' | 'answer', prompt: string): Promise<Asked>;
  /** Runs a call that a cancel of the run must abort (lib/runs/lease.ts, watched). */
  inFlight<T>(call: (signal: AbortSignal) => Promise<T>): Promise<T>;
}

export async function runTool(ctx: ToolContext, call: ToolCall): Promise<ToolOutcome> {
  const tool = ctx.tools.byName.get(call.name);
  if (!tool) return result(`No tool named ${JSON.stringify(call.name)} is offered to this run.`, true);
  if (tool.view.name === ASK_USER.name) {
    const question = call.arguments.question;
    if (typeof question !== 'string' || question.trim() === '') return result('ask_user needs its argument "question": the question, as text.', true);
    const asked = await ctx.ask('answer', question);
    return unanswered(asked) ?? result(String(asked.response?.text ?? ''), false);
  }
  if (tool.view.require_approval) {
    const asked = await ctx.ask('approval', `The run asks to call the tool ${call.name} with the arguments ${JSON.stringify(call.arguments)}. Allow it?`);
    const pending = unanswered(asked);
    if (pending) return pending;
    if (asked.response?.approved !== true) return result(`The call of ${call.name} was denied: the person the run works for did not approve it.`, true, true);
  }
  const answer = await ctx.inFlight((signal) => ctx.mcp.callTool(tool.server!, tool.toolName!, call.arguments, { signal }));
  return result(clipText(answer.text), answer.isError);
}
