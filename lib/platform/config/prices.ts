/**
 * The price table: the only place prices live (decisions.md, Money).
 * Amounts are integer microdollars. Model tokens are priced per million,
 * input and output apart, by `<provider>/<model>`; a model not listed costs
 * its provider's default. Machine time is priced per second of a run
 * holding a machine while its loop runs (not while it waits for a person),
 * by machine size (lib/machines/sizes.ts). `local` models cost their listed
 * price too, so the whole money path runs locally.
 */

export interface TokenPrice {
  input_per_million: number;
  output_per_million: number;
}

export const MODEL_PRICES: Readonly<Record<string, TokenPrice>> = {
  'local/echo': { input_per_million: 1_000_000, output_per_million: 2_000_000 },
  'local/script': { input_per_million: 1_000_000, output_per_million: 2_000_000 },
  'openai/gpt-4o-mini': { input_per_million: 150_000, output_per_million: 600_000 },
  'openai/gpt-4o': { input_per_million: 2_500_000, output_per_million: 10_000_000 },
  'openai/gpt-4.1-mini': { input_per_million: 400_000, output_per_million: 1_600_000 },
  'bedrock/anthropic.claude-3-5-haiku-20241022-v1:0': { input_per_million: 800_000, output_per_million: 4_000_000 },
  'bedrock/amazon.nova-lite-v1:0': { input_per_million: 60_000, output_per_million: 240_000 },
};

/** What a model missing from MODEL_PRICES costs, by provider. */
export const PROVIDER_DEFAULT_PRICES: Readonly<Record<string, TokenPrice>> = {
  local: { input_per_million: 1_000_000, output_per_million: 2_000_000 },
  openai: { input_per_million: 2_500_000, output_per_million: 10_000_000 },
  bedrock: { input_per_million: 3_000_000, output_per_million: 15_000_000 },
};

/**
 * The flat fee of one node execution (a node a worker ran, completed or
 * failed), on top of the tokens an agent node's model used.
 */
export const NODE_EXECUTION_FEE_MICRO_USD = 100;

/** Machine time, per second, by size. */
export const MACHINE_SECOND_MICRO_USD: Readonly<Record<string, number>> = { small: 10, medium: 20, large: 40 };

export function tokenPrice(model: string): TokenPrice {
  const listed = MODEL_PRICES[model];
  if (listed) return listed;
  const provider = model.slice(0, Math.max(0, model.indexOf('/')));
  return PROVIDER_DEFAULT_PRICES[provider] ?? PROVIDER_DEFAULT_PRICES.openai!;
}

/** The cost of these token totals, rounded up to a whole microdollar (totals, not per call: no rounding adds up). */
export function tokenCostMicroUsd(model: string, inputTokens: number, outputTokens: number): number {
  const price = tokenPrice(model);
  return Math.ceil((inputTokens * price.input_per_million + outputTokens * price.output_per_million) / 1_000_000);
}

/** The cost of `ms` of machine time on a machine of `size`, by the started second. */
export function machineCostMicroUsd(size: string, ms: number): number {
  const perSecond = MACHINE_SECOND_MICRO_USD[size];
  if (perSecond === undefined) throw new Error(`No price for machine size ${size}.`);
  return Math.ceil(ms / 1000) * perSecond;
}

/** The cost of one node execution: the flat fee plus its model's tokens when it called one. */
export function nodeCostMicroUsd(model?: { model: string; input_tokens: number; output_tokens: number }): number {
  return NODE_EXECUTION_FEE_MICRO_USD + (model ? tokenCostMicroUsd(model.model, model.input_tokens, model.output_tokens) : 0);
}
