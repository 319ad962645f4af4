import { type AllowList, parseAllowList } from './address-guard.js';

/**
 * The operator's one setting for every call to an address a user chose
 * (decisions.md, "Outbound calls": http nodes, MCP servers, webhooks):
 *
 * - `OUTBOUND_ALLOWED_HOSTS`: comma-separated hostnames, IPs or CIDRs allowed
 *   although non-public;
 * - `OUTBOUND_ALLOW_INSECURE=true`: allows `http:`.
 *
 * Each is also read under its earlier name (the http node's), when the new
 * name is unset or empty. `npm start` and the tests set them in the process's
 * environment; the CDK stack on the workers (context `outboundAllowedHosts`,
 * `outboundAllowInsecure`).
 */
export const OUTBOUND_VARIABLES = {
  OUTBOUND_ALLOWED_HOSTS: ['HTTP_NODE_ALLOWED_HOSTS'],
  OUTBOUND_ALLOW_INSECURE: ['HTTP_NODE_ALLOW_INSECURE'],
} as const satisfies Record<string, readonly string[]>;

export type OutboundVariable = keyof typeof OUTBOUND_VARIABLES;

export interface OutboundSettings extends AllowList {
  allowInsecure: boolean;
}

/** A setting's value and the variable it was read from: its own name first, then its aliases; unset or empty is no value. */
export function outboundVariable(name: OutboundVariable, env: NodeJS.ProcessEnv = process.env): { name: string; value: string } | undefined {
  for (const candidate of [name, ...OUTBOUND_VARIABLES[name]]) {
    const value = env[candidate];
    if (value !== undefined && value !== '') return { name: candidate, value };
  }
  return undefined;
}

/** Read on every call, so the operator's settings (and tests) take effect without a reload. */
export function outboundSettings(env: NodeJS.ProcessEnv = process.env): OutboundSettings {
  return {
    allowInsecure: outboundVariable('OUTBOUND_ALLOW_INSECURE', env)?.value === 'true',
    ...parseAllowList(outboundVariable('OUTBOUND_ALLOWED_HOSTS', env)?.value ?? ''),
  };
}

/** One line for `npm start`: what outbound calls may reach, and the variables that said so. */
export function describeOutboundSettings(env: NodeJS.ProcessEnv = process.env): string {
  const insecure = outboundVariable('OUTBOUND_ALLOW_INSECURE', env);
  const hosts = outboundVariable('OUTBOUND_ALLOWED_HOSTS', env);
  const entries = hosts?.value
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  return [
    insecure?.value === 'true' ? `https: and http: (${insecure.name})` : 'https: only',
    entries?.length ? `non-public addresses refused except ${entries.join(', ')} (${hosts!.name})` : 'non-public addresses refused',
  ].join('; ');
}
