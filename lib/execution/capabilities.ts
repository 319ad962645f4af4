import { PROVIDER_CONFIGURED, providerOf } from '#models/availability.js';
import type { NodeType } from '#workflows/index.js';

/**
 * What the engine can run, checked when a request starts. Kept apart from
 * the node runners so the handlers that start requests bundle none of them.
 */
export const EXECUTABLE_TYPES = new Set<string>(['transform', 'condition', 'http', 'agent', 'approval', 'workflow'] satisfies NodeType[]);

export const isExecutable = (type: string): boolean => EXECUTABLE_TYPES.has(type);

/** Why an agent node cannot run here, checked before a request starts. */
export function agentPrecheck(config: Record<string, unknown>): string | undefined {
  const provider = providerOf(String(config.model));
  if (!provider) return `model provider of ${String(config.model)} is unknown`;
  if (!PROVIDER_CONFIGURED[provider]!()) return `model provider ${provider} is not configured on this service`;
  if (Array.isArray(config.tools) && config.tools.length > 0) return 'agent tools are not supported yet';
  return undefined;
}

/** Checks that need the service's configuration, made before a request starts. */
export const NODE_PRECHECKS: Partial<Record<NodeType, (config: Record<string, unknown>) => string | undefined>> = {
  agent: agentPrecheck,
};
