import { optionalPositiveIntegers } from '#platform/http/common-schemas.js';
import { RUN_LIMIT_DESCRIPTIONS, RUN_LIMIT_NAMES, RUN_LIMIT_RULE } from './run-limit-names.js';

/**
 * harness.json's `limits`: the defaults of its runs' limits (decisions.md,
 * "Run streaming, limits and forks"), `{max_cost_micro_usd?,
 * max_duration_seconds?, max_tool_calls?}`, each a positive integer. The
 * run's own values win, field by field (lib/runs/limits.ts). POST /v2/runs
 * validates its `limits` with the same object (lib/runs/limits-schema.ts),
 * built there from the same names, descriptions and rule: harnesses'
 * index.ts, which the runs import, must not load zod.
 */
export const HarnessLimitsSchema = optionalPositiveIntegers(RUN_LIMIT_NAMES, RUN_LIMIT_DESCRIPTIONS, RUN_LIMIT_RULE);
