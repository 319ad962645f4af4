import { currentTurn, parseScript, playScript, type ScriptTurn } from './local-script.js';
import { sleep, wordPieces } from './streaming.js';
import type { ChatMessage, Completion, CompletionRequest, ModelProvider } from './types.js';

const words = (text: string): number => text.split(/\s+/).filter(Boolean).length;

const echo = (messages: ChatMessage[]): ScriptTurn => ({ content: currentTurn(messages).user ?? '' });

/** Runs the script in the last user message, or echoes it when it is not one. */
function script(messages: ChatMessage[]): ScriptTurn {
  const { user, since } = currentTurn(messages);
  const steps = user === undefined ? undefined : parseScript(user);
  return steps ? playScript(steps, since) : echo(messages);
}

const MODELS: Record<string, (messages: ChatMessage[]) => ScriptTurn> = { echo, script };

/**
 * Hands the text to `onText` word by word, waiting `delay_ms` before each
 * word after the first. The wait is kept without a listener: a scripted
 * slow model is as slow whoever watches, so a cancel during its turn can
 * be tested either way.
 */
async function stream(text: string, delayMs: number, { onText, signal }: CompletionRequest): Promise<void> {
  for (const [i, piece] of wordPieces(text).entries()) {
    if (i > 0 && delayMs > 0) await sleep(delayMs, signal);
    // A listener may abort from inside onText: the next word must not follow.
    signal?.throwIfAborted();
    onText?.(piece);
  }
}

/**
 * The deterministic development models (decisions.md, Models), which need
 * no network: `local/echo` answers the last user message unchanged;
 * `local/script` plays the tool calls and replies scripted in it (see
 * local-script.ts). Both stream their text word by word and count every
 * whitespace-separated word as one token.
 */
export const localProvider: ModelProvider = {
  async complete(request: CompletionRequest): Promise<Completion> {
    const model = Object.hasOwn(MODELS, request.model) ? MODELS[request.model] : undefined;
    if (!model) throw new Error(`The local provider has no model ${request.model}; it has ${Object.keys(MODELS).join(' and ')}.`);
    const { content, tool_calls, delay_ms } = model(request.messages);
    await stream(content, delay_ms ?? 0, request);
    const input = words(request.system) + request.messages.reduce((n, m) => n + words(m.content), 0);
    // A call costs what the model wrote for it, as a real model's output tokens would.
    const output = words(content) + (tool_calls ?? []).reduce((n, call) => n + words(call.name) + words(JSON.stringify(call.arguments)), 0);
    return { content, ...(tool_calls?.length ? { tool_calls } : {}), usage: { input_tokens: input, output_tokens: output } };
  },
};
