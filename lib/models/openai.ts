import type OpenAI from 'openai';
import { openaiApiKey } from './openai-key.js';
import type { ChatMessage, Completion, CompletionRequest, ModelProvider, ToolCall, ToolSpec } from './types.js';

/**
 * One call of an OpenAI-compatible chat completions endpoint, over fetch,
 * typed by the OpenAI SDK's own request and response types. Not the SDK's
 * client (it was): its constructor builds every resource of the OpenAI API,
 * 156 KB bundled, which put the run worker past the 750 KB bundle budget
 * (docs/benchmarks.md), while the service sends one JSON request here, with
 * no streaming and no retries (the client had maxRetries 0; the run's
 * worker retries by its message). OPENAI_BASE_URL is the operator's, not a
 * user's, so it does not go through the outbound address guard.
 */
async function createChatCompletion(body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming, signal?: AbortSignal): Promise<OpenAI.Chat.ChatCompletion> {
  const base = (process.env.OPENAI_BASE_URL || 'https://api.openai.com/v1').replace(/\/+$/, '');
  const response = await fetch(`${base}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await openaiApiKey()}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`The OpenAI-compatible endpoint answered ${response.status}: ${text.slice(0, 300)}`);
  try {
    return JSON.parse(text) as OpenAI.Chat.ChatCompletion;
  } catch {
    throw new Error(`The OpenAI-compatible endpoint answered ${response.status} with a body that is not JSON.`);
  }
}

type ChatCompletionTool = OpenAI.Chat.ChatCompletionTool;
type ChatCompletionMessage = OpenAI.Chat.ChatCompletionMessage;
type ChatCompletionMessageParam = OpenAI.Chat.ChatCompletionMessageParam;

const toolOf = (tool: ToolSpec): ChatCompletionTool => ({
  type: 'function',
  function: { name: tool.name, ...(tool.description === undefined ? {} : { description: tool.description }), parameters: tool.input_schema },
});

function messageOf(message: ChatMessage): ChatCompletionMessageParam {
  if (message.role === 'tool') return { role: 'tool', tool_call_id: message.call_id, content: message.content };
  if (message.role === 'user' || !message.tool_calls?.length) return { role: message.role, content: message.content };
  return {
    role: 'assistant',
    // A turn with calls and no text: null is how the API itself writes that in its responses.
    content: message.content || null,
    tool_calls: message.tool_calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } })),
  };
}

/**
 * The arguments of a call as an object. Models can write arguments that are
 * not a JSON object (cut off at the token limit, or plain prose); they are
 * kept as `{_raw: text}` rather than dropped to `{}`: the text stays in the
 * call as recorded, where whoever reads the run can see what went wrong,
 * and a check against the tool's schema refuses it, where `{}` could pass
 * (no required arguments) and run the tool with arguments the model never
 * meant.
 */
export function argumentsOf(text: string): Record<string, unknown> {
  // Compatible servers send "" for a call without arguments.
  if (text.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // Falls through to the raw text.
  }
  return { _raw: text };
}

// Only function calls: the request offers no custom tools, so no other kind can be asked for.
const toolCallsOf = (message: ChatCompletionMessage | undefined): ToolCall[] =>
  (message?.tool_calls ?? []).flatMap((call) =>
    call.type === 'function' ? [{ id: call.id, name: call.function.name, arguments: argumentsOf(call.function.arguments) }] : [],
  );

/**
 * Any OpenAI-compatible chat completions endpoint: `OPENAI_BASE_URL`
 * (default the OpenAI API) and its key (./openai-key.ts: a secret in AWS, `OPENAI_API_KEY` locally).
 */
export const openaiProvider: ModelProvider = {
  async complete(request: CompletionRequest): Promise<Completion> {
    const response = await createChatCompletion(
      {
        model: request.model,
        messages: [...(request.system ? [{ role: 'system' as const, content: request.system }] : []), ...request.messages.map(messageOf)],
        // An empty list is refused by the API, and by some compatible servers even when tools are unsupported.
        ...(request.tools?.length ? { tools: request.tools.map(toolOf) } : {}),
      },
      request.signal,
    );
    const message = response.choices[0]?.message;
    const toolCalls = toolCallsOf(message);
    return {
      content: message?.content ?? '',
      ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
      usage: { input_tokens: response.usage?.prompt_tokens ?? 0, output_tokens: response.usage?.completion_tokens ?? 0 },
    };
  },
};
