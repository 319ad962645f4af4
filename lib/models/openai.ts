import OpenAI from 'openai';
import type { Completion, CompletionRequest, ModelProvider } from './types.js';

let client: OpenAI | undefined;

/**
 * Any OpenAI-compatible chat completions endpoint: `OPENAI_BASE_URL`
 * (default the OpenAI API) and `OPENAI_API_KEY` from the environment.
 */
export const openaiProvider: ModelProvider = {
  async complete(request: CompletionRequest): Promise<Completion> {
    client ??= new OpenAI({ apiKey: process.env.OPENAI_API_KEY, baseURL: process.env.OPENAI_BASE_URL || undefined, maxRetries: 0 });
    const response = await client.chat.completions.create(
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
