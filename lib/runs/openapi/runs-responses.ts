import * as z from 'zod';
import { withExample } from '#platform/http/common-schemas.js';
import { v2Page } from '#platform/openapi/pagination.js';
import { RUN_FAILURE_CODES, RUN_STATUSES } from '../model.js';

/** The run of the examples, and its harness and machine. */
export const RUN_ID_EXAMPLE = 'run_0mwvm6w71Qx3LhT0pV9sKe2bA';
export const HARNESS_ID_EXAMPLE = 'h_0mwvm5z02Rk7VdJ2nW4yTq8cB';
export const MACHINE_ID_EXAMPLE = 'mch_0mwvm6w715Up1NimNL49uBANV';

const RunObject = z
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

export const RunSchema = withExample(RunObject, {
  id: RUN_ID_EXAMPLE,
  status: 'completed',
  harness_id: HARNESS_ID_EXAMPLE,
  machine_id: MACHINE_ID_EXAMPLE,
  chat_id: null,
  input: 'Hello!',
  output: 'Hello!',
  failure: null,
  usage: { input_tokens: 1, output_tokens: 1, cost_micro_usd: 12 },
  metadata: { ticket: 'SUP-1042' },
  created_at: '2026-01-31T09:30:00.000Z',
  started_at: '2026-01-31T09:30:01.000Z',
  completed_at: '2026-01-31T09:30:05.000Z',
});

export const RunList = v2Page(RunSchema, { id: 'RunList', itemsDescription: 'Newest first.' });

/** What every route on one run by id answers when it is not the caller's to see. */
export const RUN_NOT_FOUND = "No such run, a malformed id, or another account's (indistinguishable, `not_found`).";
