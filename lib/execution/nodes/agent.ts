import { type AgentMemory, agentMemory } from '#memory/index.js';
import { resolveModel } from '#models/registry.js';
import type { Completion } from '#models/types.js';
import { NodeFailure } from '../node-failure.js';
import type { NodeRunContext } from '../node-runner.js';

let memory: AgentMemory | undefined;

/**
 * The user's turn for an agent: an entry node's `query` (or `message`), a
 * single parent's text output, or else the whole input as JSON.
 */
export function userMessageOf(input: Record<string, unknown>): string {
  for (const key of ['query', 'message']) if (typeof input[key] === 'string') return input[key];
  const values = Object.values(input);
  if (values.length === 1) {
    const only = values[0] as unknown;
    if (typeof only === 'string') return only;
    if (only && typeof only === 'object' && typeof (only as { content?: unknown }).content === 'string') return (only as { content: string }).content;
  }
  return JSON.stringify(input);
}

/**
 * A model call with the chat's context memory for this node: the history
 * goes in, the user and assistant messages are written back (once per node
 * execution, however often it is retried), and token usage is returned as
 * part of the output.
 */
export async function agentNode({ node, input, signal, request, execution }: NodeRunContext): Promise<unknown> {
  const config = node.config as { model: string; system_prompt?: string };
  const resolved = resolveModel(config.model);
  if (!resolved) throw new NodeFailure('model_error', `Unknown model provider in ${config.model}.`, false);
  memory ??= agentMemory();
  const contextMemoryId = request.chat_id ?? request.id;
  const user = userMessageOf(input);
  const history = await memory.recent(request.account_id, contextMemoryId, node.id);
  let completion: Completion;
  try {
    completion = await resolved.provider.complete({
      model: resolved.model,
      system: config.system_prompt ?? '',
      messages: [...history.map((m) => ({ role: m.role, content: m.content })), { role: 'user', content: user }],
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw new NodeFailure('timeout', 'The model did not answer in time.');
    throw new NodeFailure('model_error', `The model call failed: ${(error as Error).message}`);
  }
  await memory.appendExchange({
    accountId: request.account_id,
    contextMemoryId,
    agentNodeId: node.id,
    order: `${execution.created_at}#${execution.id}`,
    executionId: execution.id,
    user,
    assistant: completion.content,
  });
  return { content: completion.content, model: config.model, usage: completion.usage };
}
