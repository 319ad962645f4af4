import { bedrockProvider } from './bedrock.js';
import { localProvider } from './local.js';
import { openaiProvider } from './openai.js';
import type { ModelProvider } from './types.js';

export const PROVIDERS: Record<string, ModelProvider> = { local: localProvider, openai: openaiProvider, bedrock: bedrockProvider };

/** Splits `<provider>/<model>`; undefined when the provider is unknown. */
export function resolveModel(name: string): { provider: ModelProvider; providerName: string; model: string } | undefined {
  const slash = name.indexOf('/');
  const providerName = slash > 0 ? name.slice(0, slash) : '';
  const provider = PROVIDERS[providerName];
  return provider ? { provider, providerName, model: name.slice(slash + 1) } : undefined;
}
