import type { Completion, CompletionRequest, ModelProvider } from './types.js';

const words = (text: string): number => text.split(/\s+/).filter(Boolean).length;

/**
 * `local/echo`, the deterministic development model (decisions.md, Models):
 * it answers the last user message unchanged and counts every
 * whitespace-separated word as one token. It needs no network.
 */
export const localProvider: ModelProvider = {
  async complete(request: CompletionRequest): Promise<Completion> {
    if (request.model !== 'echo') throw new Error(`The local provider has no model ${request.model}; it has echo.`);
    const last = [...request.messages].reverse().find((m) => m.role === 'user');
    const content = last?.content ?? '';
    const input = words(request.system) + request.messages.reduce((n, m) => n + words(m.content), 0);
    return { content, usage: { input_tokens: input, output_tokens: words(content) } };
  },
};
