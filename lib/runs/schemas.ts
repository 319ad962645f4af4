import * as z from 'zod';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from '#platform/config/limits.js';
import { boundedJson, JSON_DEPTH_RULE, limitParam, withExample } from '#platform/http/common-schemas.js';
import { RunLimitsSchema } from './limits-schema.js';
import { IF_BUSY, RUN_INPUT_MAX_BYTES, RUN_STATUSES } from './model.js';

export const CreateRunBody = withExample(
  z
    .strictObject({
      harness_id: z.string().min(1).max(100),
      input: boundedJson(z.union([z.string().max(RUN_INPUT_MAX_BYTES), z.record(z.string(), z.unknown())]))
        .refine((value) => Buffer.byteLength(JSON.stringify(value)) <= RUN_INPUT_MAX_BYTES, { error: `must be at most ${RUN_INPUT_MAX_BYTES} bytes of JSON` })
        .meta({
          description: `The user’s message (a string). A JSON object is sent to the model as its JSON text; the \`local/script\` development model plays one of \`{"steps": [...]}\`, each step \`{"tool": NAME, "arguments": {...}}\` or \`{"reply": TEXT}\`. ${JSON_DEPTH_RULE}`,
        }),
      machine_id: z.string().min(1).max(100).optional().meta({ description: 'Required unless `chat_id` names a chat already bound to a machine.' }),
      chat_id: z
        .string()
        .min(1)
        .max(100)
        .optional()
        .meta({ description: 'A chat (POST /v1/chats): the run sees its earlier runs, and the chat is bound to the machine of its first run.' }),
      metadata: boundedJson(z.record(z.string(), z.unknown()))
        .refine((value) => Buffer.byteLength(JSON.stringify(value)) <= 16_384, { error: 'must be at most 16 KiB of JSON' })
        .optional()
        .meta({ description: `Any JSON object of yours, at most 16 KiB, kept with the run and shown with it. ${JSON_DEPTH_RULE}` }),
      if_busy: z.enum(IF_BUSY).default('enqueue').meta({
        description:
          'When the chat’s previous run has not ended: wait in turn (`enqueue`), refuse (409 `chat_busy`), or cancel it and start next (`interrupt`).',
      }),
      limits: RunLimitsSchema.optional().meta({
        description:
          'Limits of this run, each a positive integer (anything else: 422 `validation_failed` naming it, e.g. `/limits/max_tool_calls`). Each one set here wins over the same limit in the harness’s harness.json; the run shows the limits it runs under as `limits`.',
      }),
    })
    .meta({ id: 'CreateRunRequest' }),
  {
    harness_id: 'h_0mwvm5z02Rk7VdJ2nW4yTq8cB',
    machine_id: 'mch_0mwvm6w715Up1NimNL49uBANV',
    input: 'Hello!',
    metadata: { ticket: 'SUP-1042' },
    limits: { max_cost_micro_usd: 50_000, max_duration_seconds: 600, max_tool_calls: 20 },
  },
);
export type CreateRunInput = z.infer<typeof CreateRunBody>;

export const ListRunsQuery = z.object({
  status: z.enum(RUN_STATUSES).optional(),
  harness_id: z.string().min(1).max(100).optional(),
  limit: limitParam(LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT),
  cursor: z.string().min(1).optional().meta({ description: '`page.next_cursor` of the previous page.' }),
});
