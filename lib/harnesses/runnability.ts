import { PROVIDER_CONFIGURED, providerOf } from '#models/availability.js';

/** What runnability reads of a harness. */
export interface RunnabilityInput {
  model: string;
  /** The path of the instructions file. */
  instructions: string;
  /** Whether the instructions file has no text but whitespace. */
  instructions_empty: boolean;
}

/**
 * Why a well-formed harness cannot run on this service, or undefined when it
 * can: its model's provider is not one of the service's or is not
 * configured here (lib/models/availability.ts, the check agent nodes make
 * before a request starts), or its instructions file is empty (nothing but
 * whitespace). The runs feature answers 422 `harness_not_runnable` with this
 * reason when a run is created; creating the harness checks neither, since
 * configuration can change after.
 */
export function runnability(harness: RunnabilityInput, configured: Record<string, () => boolean> = PROVIDER_CONFIGURED): string | undefined {
  const reasons: string[] = [];
  const provider = providerOf(harness.model);
  if (!provider || !(provider in configured)) {
    reasons.push(`the model provider of ${harness.model} is not one of this service's (${Object.keys(configured).join(', ')})`);
  } else if (!configured[provider]!()) {
    reasons.push(`the model provider ${provider} is not configured on this service`);
  }
  if (harness.instructions_empty) reasons.push(`the instructions file ${harness.instructions} is empty`);
  return reasons.length > 0 ? `${reasons.join('; ')}.` : undefined;
}
