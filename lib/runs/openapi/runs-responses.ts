import * as z from 'zod';
import { RUN_FAILURE_CODES, RUN_STATUSES } from '../model.js';

export const RunSchema = z
  .object({
    id: z.string().meta({ description: '`run_` followed by an opaque part.' }),
    status: z.enum(RUN_STATUSES).meta({
      description:
        '`queued` (waiting for its machine), `running` (its agent loop is going), `waiting` (for a person: an `ask_user` answer or an approval; it still holds its machine), then `completed`, `failed` or `cancelled`.',
    }),
    harness_id: z.string(),
    machine_id: z.string(),
    chat_id: z.string().nullable(),
    input: z.union([z.string(), z.record(z.string(), z.unknown())]),
    output: z.string().nullable().meta({ description: 'The text of the model’s final answer; null until the run completes.' }),
    failure: z
      .object({ code: z.enum(RUN_FAILURE_CODES), message: z.string(), retryable: z.boolean() })
      .nullable()
      .meta({ description: 'Present on a failed run.' }),
    usage: z
      .object({ input_tokens: z.number().int(), output_tokens: z.number().int(), cost_micro_usd: z.number().int() })
      .meta({ description: 'Tokens of every model turn, and their cost plus machine time (by size, while running) from the price table, in microdollars.' }),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    created_at: z.string(),
    started_at: z.string().nullable(),
    completed_at: z.string().nullable(),
  })
  .meta({ id: 'Run' });

export const RunList = z
  .object({ data: z.array(RunSchema), page: z.object({ has_more: z.boolean(), next_cursor: z.string().nullable() }) })
  .meta({ id: 'RunList' });

/** What every route on one run by id answers when it is not the caller's to see. */
export const RUN_NOT_FOUND = "No such run, a malformed id, or another account's (indistinguishable, `not_found`).";
