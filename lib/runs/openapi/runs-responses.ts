import * as z from 'zod';
import { RUN_LIMIT_NAMES } from '#harnesses/model.js';
import { withExample } from '#platform/http/common-schemas.js';
import { v2Page } from '#platform/openapi/pagination.js';
import { RunLimitsSchema } from '../limits-schema.js';
import { RUN_FAILURE_CODES, RUN_STATUSES } from '../model.js';

/** The run of the examples, and its harness and machine. */
export const RUN_ID_EXAMPLE = 'run_0mwvm6w71Qx3LhT0pV9sKe2bA';
export const HARNESS_ID_EXAMPLE = 'h_0mwvm5z02Rk7VdJ2nW4yTq8cB';
export const MACHINE_ID_EXAMPLE = 'mch_0mwvm6w715Up1NimNL49uBANV';

/** A failed run's `failure`, on the run and on its last `run.status` event. */
export const RunFailureSchema = z
  .object({
    code: z.enum(RUN_FAILURE_CODES),
    message: z.string().meta({ description: 'For a person; do not parse it.' }),
    retryable: z.boolean(),
    limit: z.enum(RUN_LIMIT_NAMES).optional().meta({ description: 'With `budget_exceeded` only: the limit of `limits` the run reached.' }),
  })
  .meta({
    id: 'RunFailure',
    description:
      'Why the run failed. `code`: `model_error` (retryable), `upstream_unavailable` (an MCP server unreachable or failing; retryable), `timeout` (an interaction expired), `max_turns_exceeded`, `budget_exceeded` (the run reached one of its `limits`, named by `limit`), `usage_window_exceeded` (a plan window filled and nothing funds more; wait), `out_of_funds` (extra usage ran the wallet dry; pay), `internal_error`; only `model_error` and `upstream_unavailable` are retryable.',
  });

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
    failure: RunFailureSchema.nullable().meta({ description: 'Present on a failed run.' }),
    usage: z
      .object({ input_tokens: z.number().int(), output_tokens: z.number().int(), cost_micro_usd: z.number().int() })
      .meta({ description: 'Tokens of every model turn, and their cost plus machine time (by size, while running) from the price table, in microdollars.' }),
    limits: RunLimitsSchema.nullable().meta({
      description: 'The limits the run runs under: those it was created with, over its harness’s defaults, field by field; null when it has none.',
    }),
    forked_from: z
      .object({
        run_id: z.string().meta({ description: 'The run it was forked from.' }),
        seq: z.number().int().min(1).meta({ description: 'The `from_seq` it was forked at: the source’s conversation up to that event is reused.' }),
      })
      .nullable()
      .meta({ description: 'A fork (`POST /v2/runs/{id}/fork`): where it comes from; null when the run is not a fork.' }),
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
  limits: { max_cost_micro_usd: 50_000, max_duration_seconds: 600, max_tool_calls: 20 },
  forked_from: null,
  metadata: { ticket: 'SUP-1042' },
  created_at: '2026-01-31T09:30:00.000Z',
  started_at: '2026-01-31T09:30:01.000Z',
  completed_at: '2026-01-31T09:30:05.000Z',
});

export const RunList = v2Page(RunSchema, { id: 'RunList', itemsDescription: 'Newest first.' });

/** What every route on one run by id answers when it is not the caller's to see. */
export const RUN_NOT_FOUND = "No such run, a malformed id, or another account's (indistinguishable, `not_found`).";
