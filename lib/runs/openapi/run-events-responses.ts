import * as z from 'zod';
import type { ResponseDoc } from '#platform/http/contract.js';
import { RUN_EVENT_TYPES, RUN_STATUSES } from '../model.js';

const usage = { input_tokens: z.number().int(), output_tokens: z.number().int(), cost_micro_usd: z.number().int() };

export const RunEventSchema = z
  .object({
    id: z.string().meta({ description: 'Opaque and unique across runs; the SSE `id:` (send it back as `Last-Event-ID`).' }),
    run_id: z.string(),
    seq: z.number().int().min(1).meta({ description: '1, 2, 3… within the run, without gaps.' }),
    type: z.enum(RUN_EVENT_TYPES),
    created_at: z.string().datetime(),
    data: z
      .union([
        z.object({ status: z.enum(RUN_STATUSES) }).meta({ title: 'run.status' }),
        z.object({ role: z.enum(['user', 'assistant']), text: z.string() }).meta({ title: 'message' }),
        z.object({ call_id: z.string(), name: z.string(), arguments: z.record(z.string(), z.unknown()) }).meta({ title: 'tool_call' }),
        z
          .object({ call_id: z.string(), name: z.string(), text: z.string(), is_error: z.boolean(), denied: z.boolean().optional() })
          .meta({ title: 'tool_result' }),
        z.object({ interaction_id: z.string(), type: z.enum(['approval', 'answer']), status: z.string() }).meta({ title: 'interaction' }),
        z.object(usage).meta({ title: 'usage' }),
      ])
      .meta({
        description:
          'By `type`: `run.status` {status}, `message` {role, text}, `tool_call`, `tool_result`, `interaction`, `usage` (after each model turn: the run’s usage so far, its tokens and cost with machine time, as `usage` on the run).',
      }),
  })
  .meta({ id: 'RunEvent' });

export const RunEventListSchema = z
  .object({
    data: z.array(RunEventSchema).meta({ description: 'In `seq` order.' }),
    page: z.object({
      has_more: z.boolean().meta({ description: 'More events were written than this page holds.' }),
      next_cursor: z
        .string()
        .nullable()
        .meta({ description: 'Null once the run has ended and this page holds its last event; while it runs, the cursor to ask for later events with.' }),
    }),
  })
  .meta({ id: 'RunEventList' });

/** The event stream, the 200's `text/event-stream`: each message carries one `RunEvent`. */
export const RunEventStreamSchema = z.string().meta({
  description:
    'Server-Sent Events: `id: <event id>\\nevent: <type>\\ndata: <RunEvent JSON>\\n\\n` per event, and `: keepalive\\n\\n` comments while nothing happens.',
  // As the v1 stream's: OpenAPI 3.1 cannot give each event a schema, so the event's is a subschema (3.2's `itemSchema` can).
  $defs: { data: { $ref: '#/components/schemas/RunEvent' } },
  example:
    'id: cnVuXzAxMjM0NTY3OGFiY2RlZmdoaWprbG1ub3A6MQ\nevent: run.status\ndata: {"id":"cnVuXzAxMjM0NTY3OGFiY2RlZmdoaWprbG1ub3A6MQ","run_id":"run_012345678abcdefghijklmnop","seq":1,"type":"run.status","created_at":"2026-01-01T00:00:00.000Z","data":{"status":"queued"}}\n\n' +
    ': keepalive\n\n',
});

export const RunEventsOk: ResponseDoc = {
  description: 'A page of the run’s events (`application/json`), or their stream (`text/event-stream`), as `Accept` asks.',
  headers: {
    Vary: { description: 'The representation depends on `Accept`.', schema: { type: 'string', const: 'Accept' } },
    'X-Request-Id': { schema: { type: 'string' } },
  },
  schema: RunEventListSchema,
  alternatives: { 'text/event-stream': RunEventStreamSchema },
};
