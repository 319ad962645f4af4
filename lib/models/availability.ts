/**
 * Whether each model provider is configured on this service, from the
 * environment alone, so checks made before a run starts need none of the
 * provider SDKs.
 */
export const PROVIDER_CONFIGURED: Record<string, () => boolean> = {
  local: () => true,
  // OPENAI_CONFIGURED: set by the stack on functions that check but never call.
  openai: () => Boolean(process.env.OPENAI_API_KEY || process.env.OPENAI_API_KEY_SECRET_ARN) || process.env.OPENAI_CONFIGURED === 'true',
  // The function's own role in AWS; elsewhere only when asked for.
  bedrock: () => Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME) || process.env.BEDROCK_ENABLED === 'true',
};

export function providerOf(model: string): string | undefined {
  const slash = model.indexOf('/');
  const name = slash > 0 ? model.slice(0, slash) : '';
  return name in PROVIDER_CONFIGURED ? name : undefined;
}
