/**
 * The limits of a run (decisions.md, "Run streaming, limits and forks"),
 * which harness.json may carry as defaults: their names, in their documented
 * order. The schema that validates them is ./run-limits.ts.
 */
export const RUN_LIMIT_NAMES = ['max_cost_micro_usd', 'max_duration_seconds', 'max_tool_calls'] as const;
export type RunLimitName = (typeof RUN_LIMIT_NAMES)[number];
export type RunLimits = Partial<Record<RunLimitName, number>>;

/**
 * What each limit bounds, and the rule every value keeps, for the two schemas
 * that validate them (harness.json's, ./run-limits.ts, and POST /v2/runs's,
 * in the runs), so that they describe and refuse alike without this module
 * loading zod.
 */
export const RUN_LIMIT_DESCRIPTIONS: Readonly<Record<RunLimitName, string>> = {
  max_cost_micro_usd: 'The most the run may cost (its `usage.cost_micro_usd`: tokens and machine time so far), in microdollars.',
  max_duration_seconds:
    'The most time the run may spend `running`, in seconds, counted from when it starts; time `queued` and time `waiting` for a person do not count.',
  max_tool_calls: 'The most tool calls the run may make (`ask_user` included; a call a person denied does not count).',
};
export const RUN_LIMIT_RULE = 'must be a positive integer';

/** The limits set, in their documented order (a stored map keeps none). */
export function limitsInOrder(limits: RunLimits): RunLimits {
  const ordered: RunLimits = {};
  for (const name of RUN_LIMIT_NAMES) if (limits[name] !== undefined) ordered[name] = limits[name];
  return ordered;
}
