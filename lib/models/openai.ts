import type OpenAI from 'openai';
import type { ChatMessage, Completion, CompletionRequest, ModelProvider, ToolCall, ToolSpec } from './types.js';

// Loaded on the first OpenAI-compatible call, not at init: the SDK is the
// agent worker's largest module, and workers that only call Bedrock or the
// local model never need it (docs/benchmarks.md).
let client: OpenAI | undefined;
export const openaiClient = async (): Promise<OpenAI> =>
  (client ??= new (await import('openai')).default({ apiKey: process.env.OPENAI_API_KEY, baseURL: process.env.OPENAI_BASE_URL || undefined, maxRetries: 0 }));

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
 * (default the OpenAI API) and `OPENAI_API_KEY` from the environment.
 */
export const openaiProvider: ModelProvider = {
  async complete(request: CompletionRequest): Promise<Completion> {
    const response = await (await openaiClient()).chat.completions.create(
      {
        model: request.model,
        messages: [...(request.system ? [{ role: 'system' as const, content: request.system }] : []), ...request.messages.map(messageOf)],
        // An empty list is refused by the API, and by some compatible servers even when tools are unsupported.
        ...(request.tools?.length ? { tools: request.tools.map(toolOf) } : {}),
      },
      { signal: request.signal },
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
