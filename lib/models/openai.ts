import type OpenAI from 'openai';
import type { Completion, CompletionRequest, ModelProvider } from './types.js';

// Loaded on the first OpenAI-compatible call, not at init: the SDK is the
// agent worker's largest module, and workers that only call Bedrock or the
// local model never need it (docs/benchmarks.md).
let client: OpenAI | undefined;
export const openaiClient = async (): Promise<OpenAI> =>
  (client ??= new (await import('openai')).default({ apiKey: process.env.OPENAI_API_KEY, baseURL: process.env.OPENAI_BASE_URL || undefined, maxRetries: 0 }));

/**
 * Any OpenAI-compatible chat completions endpoint: `OPENAI_BASE_URL`
 * (default the OpenAI API) and `OPENAI_API_KEY` from the environment.
 */
export const openaiProvider: ModelProvider = {
  async complete(request: CompletionRequest): Promise<Completion> {
    const response = await (await openaiClient()).chat.completions.create(
      {
        model: request.model,
        messages: [...(request.system ? [{ role: 'system' as const, content: request.system }] : []), ...request.messages],
      },
      { signal: request.signal },
    );
    return {
      content: response.choices[0]?.message?.content ?? '',
      usage: { input_tokens: response.usage?.prompt_tokens ?? 0, output_tokens: response.usage?.completion_tokens ?? 0 },
    };
  },
};
