import type { BedrockRuntimeClient, ContentBlock, Message, Tool, ToolUseBlock } from '@aws-sdk/client-bedrock-runtime';
import { completionOfStream } from './bedrock-stream.js';
import type { ChatMessage, Completion, CompletionRequest, ModelProvider, ToolCall, ToolSpec } from './types.js';

// The SDK's JSON type, named without importing @smithy/types, which is not a dependency of ours.
type DocumentType = NonNullable<ToolUseBlock['input']>;

// Loaded on the first Bedrock call, not at init: agent workers that only
// call OpenAI-compatible or local models never need its commands and event
// stream codecs (docs/benchmarks.md).
const bedrockSdk = () => import('@aws-sdk/client-bedrock-runtime');

let client: BedrockRuntimeClient | undefined;
export const bedrockClient = async (): Promise<BedrockRuntimeClient> =>
  (client ??= new (await bedrockSdk()).BedrockRuntimeClient({ region: process.env.BEDROCK_REGION ?? process.env.AWS_REGION }));

const toolOf = (tool: ToolSpec): Tool => ({
  toolSpec: { name: tool.name, description: tool.description, inputSchema: { json: tool.input_schema as DocumentType } },
});

/**
 * The conversation as Converse messages. Tool results go back as user
 * messages, and consecutive ones share a single message: Converse wants
 * roles to alternate, and the results of one assistant turn's calls all
 * answer it at once.
 */
export function messagesOf(messages: ChatMessage[]): Message[] {
  const out: Message[] = [];
  let resultsMessage: Message | undefined;
  for (const m of messages) {
    if (m.role === 'tool') {
      const block: ContentBlock = {
        toolResult: { toolUseId: m.call_id, content: [{ text: m.content }], status: m.is_error ? 'error' : 'success' },
      };
      if (resultsMessage) resultsMessage.content!.push(block);
      else {
        resultsMessage = { role: 'user', content: [block] };
        out.push(resultsMessage);
      }
      continue;
    }
    resultsMessage = undefined;
    const calls: ContentBlock[] = (m.role === 'assistant' ? (m.tool_calls ?? []) : []).map((call) => ({
      toolUse: { toolUseId: call.id, name: call.name, input: call.arguments as DocumentType },
    }));
    // Converse refuses blank text blocks, and a turn that only calls tools has no text.
    const text: ContentBlock[] = calls.length && !m.content ? [] : [{ text: m.content }];
    out.push({ role: m.role, content: [...text, ...calls] });
  }
  return out;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Converse hands the input over parsed. Anything but an object cannot
 * match a tool's schema; like OpenAI's unparsable arguments (openai.ts) it
 * is kept as `_raw`, so the failed schema check shows it.
 */
const argumentsOf = (input: ToolUseBlock['input']): Record<string, unknown> => (input == null ? {} : isObject(input) ? input : { _raw: input });

function toolCallsOf(content: ContentBlock[]): ToolCall[] {
  return content.flatMap(({ toolUse }) => (toolUse ? [{ id: toolUse.toolUseId ?? '', name: toolUse.name ?? '', arguments: argumentsOf(toolUse.input) }] : []));
}

/**
 * Amazon Bedrock through the Converse API, with the function's own role.
 * Configured wherever the service runs in AWS (or BEDROCK_ENABLED=true).
 * Streamed (ConverseStream, `bedrock:InvokeModelWithResponseStream`) only for
 * a caller that listens (`onText`); the others make the plain Converse call.
 */
export const bedrockProvider: ModelProvider = {
  async complete(request: CompletionRequest): Promise<Completion> {
    const { ConverseCommand, ConverseStreamCommand } = await bedrockSdk();
    const input = {
      modelId: request.model,
      system: request.system ? [{ text: request.system }] : undefined,
      messages: messagesOf(request.messages),
      // Converse refuses an empty tool list.
      toolConfig: request.tools?.length ? { tools: request.tools.map(toolOf) } : undefined,
    };
    if (request.onText) {
      const { stream } = await (await bedrockClient()).send(new ConverseStreamCommand(input), { abortSignal: request.signal });
      if (!stream) throw new Error('Bedrock answered ConverseStream without a stream.');
      return completionOfStream(stream, request.onText, request.signal);
    }
    const response = await (await bedrockClient()).send(new ConverseCommand(input), { abortSignal: request.signal });
    const blocks = response.output?.message?.content ?? [];
    const content = blocks.map((block) => block.text ?? '').join('');
    const toolCalls = toolCallsOf(blocks);
    return {
      content,
      ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
      usage: { input_tokens: response.usage?.inputTokens ?? 0, output_tokens: response.usage?.outputTokens ?? 0 },
    };
  },
};
