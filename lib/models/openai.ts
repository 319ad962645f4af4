import type OpenAI from 'openai';
import { APIError } from 'openai/core/error';
import { Stream } from 'openai/core/streaming';
import { openaiApiKey } from './openai-key.js';
import { untilAborted } from './streaming.js';
import { argumentsOf } from './tool-arguments.js';
import type { ChatMessage, Completion, CompletionRequest, ModelProvider, ToolCall, ToolSpec } from './types.js';

/**
 * One call of an OpenAI-compatible chat completions endpoint, sent over
 * fetch and typed by the OpenAI SDK's own request and response types; a
 * streamed answer is parsed by the SDK's own Server-Sent Events reader
 * (`Stream.fromSSEResponse`, which takes the Response). Not the SDK's
 * client, whose constructor builds every resource of the OpenAI API: on the
 * run worker, already over its 750 KB bundle budget (docs/benchmarks.md),
 * the client adds 148 KB, `ChatCompletionStream` (the SDK's accumulation of
 * chunks, the dozen lines of `streamed` below) 33 KB, `Stream` alone 8.5 KB
 * (778.7 KB before, 786.9 KB after, with the hand-written parser it
 * replaced gone). No retries (the client had maxRetries 0): the run's
 * worker retries by its message. OPENAI_BASE_URL is the operator's, not a
 * user's, so it does not go through the outbound address guard.
 */
async function post(body: OpenAI.Chat.ChatCompletionCreateParams, signal?: AbortSignal): Promise<Response> {
  const base = (process.env.OPENAI_BASE_URL || 'https://api.openai.com/v1').replace(/\/+$/, '');
  const response = await fetch(`${base}/chat/completions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${await openaiApiKey()}`,
      'content-type': 'application/json',
      accept: body.stream ? 'text/event-stream' : 'application/json',
    },
    body: JSON.stringify(body),
    signal,
  });
  if (!response.ok) throw upstreamError(response.status, await response.text());
  return response;
}

const upstreamError = (status: number, text: string) => new Error(`The OpenAI-compatible endpoint answered ${status}: ${text.slice(0, 300)}`);

function parsed<T>(status: number, text: string, what = 'a body'): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`The OpenAI-compatible endpoint answered ${status} with ${what} that is not JSON.`);
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

// Only function calls: the request offers no custom tools, so no other kind can be asked for.
const toolCallsOf = (message: ChatCompletionMessage | undefined): ToolCall[] =>
  (message?.tool_calls ?? []).flatMap((call) =>
    call.type === 'function' ? [{ id: call.id, name: call.function.name, arguments: argumentsOf(call.function.arguments) }] : [],
  );

const usageOf = (usage: OpenAI.CompletionUsage | null | undefined): Completion['usage'] => ({
  input_tokens: usage?.prompt_tokens ?? 0,
  output_tokens: usage?.completion_tokens ?? 0,
});

function completionOf(response: OpenAI.Chat.ChatCompletion): Completion {
  const message = response.choices[0]?.message;
  const toolCalls = toolCallsOf(message);
  return { content: message?.content ?? '', ...(toolCalls.length ? { tool_calls: toolCalls } : {}), usage: usageOf(response.usage) };
}

/**
 * The answer of a streamed request, put together from the chunks the SDK's
 * `Stream` parses: the text as it comes (each piece to `onText`), the calls
 * by their index (a call's id and name come first, its arguments as JSON in
 * pieces), and the usage from the last chunk (`include_usage`). `controller`
 * is the request's own: the SDK aborts it when the stream is left early (an
 * error, an abort), which lets the connection go.
 */
async function streamed(response: Response, controller: AbortController, onText: (delta: string) => void, signal?: AbortSignal): Promise<Completion> {
  // A compatible server that does not stream answers the whole completion: it is one piece of text.
  if (!response.headers.get('content-type')?.includes('text/event-stream')) {
    const completion = completionOf(parsed(response.status, await response.text()));
    if (completion.content) onText(completion.content);
    return completion;
  }
  let content = '';
  const calls: Array<{ id: string; name: string; arguments: string }> = [];
  let usage: OpenAI.CompletionUsage | null | undefined;
  try {
    // The SDK's stream ends quietly when its connection is aborted; a model call must reject instead.
    for await (const chunk of untilAborted(Stream.fromSSEResponse<OpenAI.Chat.ChatCompletionChunk>(response, controller), signal)) {
      usage = chunk.usage ?? usage;
      const delta = chunk.choices?.find((choice) => choice.index === 0)?.delta;
      if (delta?.content) {
        content += delta.content;
        onText(delta.content);
      }
      for (const part of delta?.tool_calls ?? []) {
        calls[part.index] ??= { id: '', name: '', arguments: '' };
        const call = calls[part.index]!;
        if (part.id) call.id = part.id;
        if (part.function?.name) call.name = part.function.name;
        call.arguments += part.function?.arguments ?? '';
      }
    }
  } catch (error) {
    // An error after the 200 has gone out comes as an event of its own, which the SDK throws as an APIError.
    if (error instanceof APIError) throw upstreamError(response.status, JSON.stringify({ error: error.error ?? error.message }));
    // The SDK's JSON.parse of an event (which it has logged to the console).
    if (error instanceof SyntaxError)
      throw new Error(`The OpenAI-compatible endpoint answered ${response.status} with an event that is not JSON.`, { cause: error });
    throw error;
  }
  // An abort the loop did not see: the SDK's stream ended quietly first.
  signal?.throwIfAborted();
  const toolCalls = calls.filter(Boolean).map((call) => ({ id: call.id, name: call.name, arguments: argumentsOf(call.arguments) }));
  return { content, ...(toolCalls.length ? { tool_calls: toolCalls } : {}), usage: usageOf(usage) };
}

/**
 * Any OpenAI-compatible chat completions endpoint: `OPENAI_BASE_URL`
 * (default the OpenAI API) and its key (./openai-key.ts: a secret in AWS,
 * `OPENAI_API_KEY` locally). Streamed only for a caller that listens
 * (`onText`): the others send the same request as before streaming, so a
 * compatible server that streams poorly, or not at all, only affects
 * callers that asked for it.
 */
export const openaiProvider: ModelProvider = {
  async complete(request: CompletionRequest): Promise<Completion> {
    const body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = {
      model: request.model,
      messages: [...(request.system ? [{ role: 'system' as const, content: request.system }] : []), ...request.messages.map(messageOf)],
      // An empty list is refused by the API, and by some compatible servers even when tools are unsupported.
      ...(request.tools?.length ? { tools: request.tools.map(toolOf) } : {}),
    };
    if (request.onText) {
      const controller = new AbortController();
      const signal = request.signal ? AbortSignal.any([request.signal, controller.signal]) : controller.signal;
      const response = await post({ ...body, stream: true, stream_options: { include_usage: true } }, signal);
      return streamed(response, controller, request.onText, request.signal);
    }
    const response = await post(body, request.signal);
    return completionOf(parsed(response.status, await response.text()));
  },
};
