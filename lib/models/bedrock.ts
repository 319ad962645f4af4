import type { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import type { Completion, CompletionRequest, ModelProvider } from './types.js';

// Loaded on the first Bedrock call, not at init: agent workers that only
// call OpenAI-compatible or local models never need its commands and event
// stream codecs (docs/benchmarks.md).
const bedrockSdk = () => import('@aws-sdk/client-bedrock-runtime');

let client: BedrockRuntimeClient | undefined;
export const bedrockClient = async (): Promise<BedrockRuntimeClient> =>
  (client ??= new (await bedrockSdk()).BedrockRuntimeClient({ region: process.env.BEDROCK_REGION ?? process.env.AWS_REGION }));

/**
 * Amazon Bedrock through the Converse API, with the function's own role.
 * Configured wherever the service runs in AWS (or BEDROCK_ENABLED=true).
 */
export const bedrockProvider: ModelProvider = {
  async complete(request: CompletionRequest): Promise<Completion> {
    const { ConverseCommand } = await bedrockSdk();
    const response = await (await bedrockClient()).send(
      new ConverseCommand({
        modelId: request.model,
        system: request.system ? [{ text: request.system }] : undefined,
        messages: request.messages.map((m) => ({ role: m.role, content: [{ text: m.content }] })),
      }),
      { abortSignal: request.signal },
    );
    const content = (response.output?.message?.content ?? []).map((block) => block.text ?? '').join('');
    return { content, usage: { input_tokens: response.usage?.inputTokens ?? 0, output_tokens: response.usage?.outputTokens ?? 0 } };
  },
};
