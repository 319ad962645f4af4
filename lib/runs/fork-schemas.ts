import * as z from 'zod';
import { boundedJson, JSON_DEPTH_RULE, withExample } from '#platform/http/common-schemas.js';

/** The body of POST /v2/runs/{id}/fork (lib/runs/fork-run.ts). */
export const ForkRunBody = withExample(
  z
    .strictObject({
      from_seq: z.number().int().min(1).meta({
        description:
          'The `seq` of the source run’s event the fork goes on after: an integer from 1 to the seq of its last event (anything else: 422 `validation_failed` naming `/from_seq`). Every model turn and tool result recorded up to it is reused; a model turn whose events `from_seq` cuts through, and the turn of the final answer, are played again.',
      }),
      machine_id: z
        .string()
        .min(1)
        .max(100)
        .optional()
        .meta({ description: 'The machine the fork runs on; the source’s when absent. Checked as at creation (422 naming `/machine_id`).' }),
      metadata: boundedJson(z.record(z.string(), z.unknown()))
        .refine((value) => Buffer.byteLength(JSON.stringify(value)) <= 16_384, { error: 'must be at most 16 KiB of JSON' })
        .optional()
        .meta({ description: `Any JSON object of yours, at most 16 KiB, kept with the fork; the source’s when absent. ${JSON_DEPTH_RULE}` }),
    })
    .meta({ id: 'ForkRunRequest' }),
  { from_seq: 6 },
);
export type ForkRunInput = z.infer<typeof ForkRunBody>;
