import { RUN_LIMIT_DESCRIPTIONS, RUN_LIMIT_NAMES, RUN_LIMIT_RULE } from '#harnesses/model.js';
import { optionalPositiveIntegers } from '#platform/http/common-schemas.js';

/**
 * `limits` of POST /v2/runs and of the run as shown (decisions.md, "Run
 * streaming, limits and forks"): each a positive integer, anything else 422
 * `validation_failed` naming it (`/limits/max_tool_calls`), a field it does
 * not have 400 `unknown_field`. harness.json's `limits` is the same object,
 * validated by the harness's own schema from the same names, descriptions
 * and rule (lib/harnesses/run-limits.ts).
 */
export const RunLimitsSchema = optionalPositiveIntegers(RUN_LIMIT_NAMES, RUN_LIMIT_DESCRIPTIONS, RUN_LIMIT_RULE).meta({
  id: 'RunLimits',
  description:
    'Limits of a run, each a positive integer. A run that reaches one fails with `failure.code` `budget_exceeded` and `failure.limit` naming it, before its next model turn or tool call: it overshoots by at most one model turn or one tool call, and what it used is billed.',
});
