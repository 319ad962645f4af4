import * as z from 'zod';
import { RUN_LIMIT_DESCRIPTIONS, RUN_LIMIT_NAMES, RUN_LIMIT_RULE } from './run-limit-names.js';

/**
 * harness.json's `limits`: the defaults of its runs' limits (decisions.md,
 * "Run streaming, limits and forks"), `{max_cost_micro_usd?,
 * max_duration_seconds?, max_tool_calls?}`, each a positive integer. The
 * run's own values win, field by field (lib/runs/limits.ts). POST /v2/runs
 * validates its `limits` with a schema of its own built from the same names,
 * descriptions and rule (lib/runs/limits-schema.ts): harnesses' index.ts,
 * which the runs import, must not load zod.
 */
export const HarnessLimitsSchema = z.strictObject(
  Object.fromEntries(
    RUN_LIMIT_NAMES.map((name) => [
      name,
      z
        .number({ error: RUN_LIMIT_RULE })
        .int({ error: RUN_LIMIT_RULE })
        .min(1, { error: RUN_LIMIT_RULE })
        .optional()
        .meta({ description: RUN_LIMIT_DESCRIPTIONS[name] }),
    ]),
  ) as Record<(typeof RUN_LIMIT_NAMES)[number], z.ZodOptional<z.ZodNumber>>,
);
