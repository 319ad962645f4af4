import * as z from 'zod';
import { withExample } from '#platform/http/common-schemas.js';
import type { ResponseDoc } from '#platform/http/contract.js';
import { v2Page } from '#platform/openapi/pagination.js';
import { RUN_EVENT_TYPES, RUN_STATUSES, type RunEventType } from '../model.js';
import { RUN_ID_EXAMPLE, RunFailureSchema } from './runs-responses.js';

/** On an event a fork copied from its source (lib/runs/fork-plan.ts): the source's event it copies. */
const REUSED_FROM = z
  .object({ run_id: z.string(), seq: z.number().int().min(1) })
  .meta({
    id: 'RunEventReusedFrom',
    description:
      'Only on the events a fork’s log starts with: copied from the run it was forked from (`run_id`, its event `seq`). They tell the conversation the fork reuses; no model or tool was called again for them.',
  })
  .optional();

/** Each event type's `data`: a type without one fails to compile, so the union below is every event the runs record. */
const DATA = {
  'run.status': z.object({
    status: z.enum(RUN_STATUSES),
    failure: RunFailureSchema.optional().meta({ description: 'On the `failed` event: the run’s `failure`.' }),
  }),
  message: z.object({ role: z.enum(['user', 'assistant']), text: z.string(), reused_from: REUSED_FROM }),
  'message.delta': z.object({
    text: z.string().meta({ description: 'The next piece of the assistant’s answer (with `restart`: the answer so far).' }),
    restart: z.boolean().optional().meta({
      description:
        'Discard the text of this turn’s deltas before this one: the answer starts again with this `text`. Written only when a model turn was played again and its new text differs from what was already sent.',
    }),
  }),
  tool_call: z.object({ call_id: z.string(), name: z.string(), arguments: z.record(z.string(), z.unknown()), reused_from: REUSED_FROM }),
  tool_result: z.object({
    call_id: z.string(),
    name: z.string(),
    text: z.string(),
    is_error: z.boolean(),
    denied: z.boolean().optional().meta({ description: 'The person rejected the call; it was not made.' }),
    reused_from: REUSED_FROM,
  }),
  interaction: z.object({ interaction_id: z.string(), type: z.enum(['approval', 'answer']), status: z.string(), reused_from: REUSED_FROM }),
  usage: z
    .object({ input_tokens: z.number().int(), output_tokens: z.number().int(), cost_micro_usd: z.number().int() })
    .meta({ description: 'After each model turn: the run’s usage so far, its tokens and cost with machine time, as `usage` on the run.' }),
} satisfies Record<RunEventType, z.ZodType>;

/** What an event type's component says beyond its `data`, and its example. */
const EVENT_DOCS: Partial<Record<RunEventType, { description: string; examples: unknown[] }>> = {
  'message.delta': {
    description: [
      'A piece of the assistant’s answer while the model produces it. Deltas are coalesced: a run writes at most about 4 a second (a piece waits about 250 ms at most), and what is left when the answer is complete is written just before its `message`. They are ordinary events: `seq`, paging, the stream and `Last-Event-ID` treat them like any other.',
      'The rule: the `text` of a model turn’s deltas, concatenated in `seq` order from the last one with `restart: true` (its `text` included) or from the turn’s first, equals the `text` of the assistant `message` that follows them; a turn that ends with tool calls only writes no `message`, and its deltas then add up to the empty text. A turn cut short by the run’s end (cancelled, failed) has deltas and no `message`; once a run is cancelled, no delta is written.',
      'Replay: a worker that dies mid-answer leaves its deltas; the worker that takes the run over plays the turn again and sends only what goes past the text already sent. When its text departs from it, it sends a delta with `restart: true` carrying the whole answer so far, so the rule above still holds.',
    ].join('\n\n'),
    examples: [
      {
        id: Buffer.from(`${RUN_ID_EXAMPLE}:3`).toString('base64url'),
        run_id: RUN_ID_EXAMPLE,
        seq: 3,
        type: 'message.delta',
        created_at: '2026-01-31T09:30:03.250Z',
        data: { text: 'Hello, how ' },
      },
    ],
  },
};

/** `tool_result` → `RunToolResultEvent`, `run.status` → `RunStatusEvent`. */
const componentOf = (type: RunEventType) =>
  `Run${type
    .replace(/^run\./, '')
    .split(/[._]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')}Event`;

const eventOf = <T extends RunEventType>(type: T) =>
  z
    .object({
      id: z.string().meta({ description: 'Opaque and unique across runs; the SSE `id:` (send it back as `Last-Event-ID`).' }),
      run_id: z.string(),
      seq: z.number().int().min(1).meta({ description: '1, 2, 3… within the run, without gaps.' }),
      type: z.literal(type),
      created_at: z.string().datetime(),
      data: DATA[type],
    })
    .meta({ id: componentOf(type), ...EVENT_DOCS[type] });

const eventId = (seq: number) => Buffer.from(`${RUN_ID_EXAMPLE}:${seq}`).toString('base64url');
const at = (seq: number) => `2026-01-31T09:30:0${seq}.000Z`;

const EVENT_SCHEMAS = RUN_EVENT_TYPES.map((type) => eventOf(type));

export const RunEventSchema = withExample(
  z
    .discriminatedUnion('type', EVENT_SCHEMAS as [(typeof EVENT_SCHEMAS)[number], ...typeof EVENT_SCHEMAS])
    .meta({ id: 'RunEvent', description: 'One event of a run: its `type` says which, and what its `data` is.' }),
  { id: eventId(3), run_id: RUN_ID_EXAMPLE, seq: 3, type: 'message', created_at: at(3), data: { role: 'assistant', text: 'Hello!' } },
);

const EVENTS = [
  { id: eventId(1), run_id: RUN_ID_EXAMPLE, seq: 1, type: 'run.status', created_at: at(1), data: { status: 'running' } },
  { id: eventId(2), run_id: RUN_ID_EXAMPLE, seq: 2, type: 'message', created_at: at(2), data: { role: 'user', text: 'Hello!' } },
  { id: eventId(3), run_id: RUN_ID_EXAMPLE, seq: 3, type: 'message', created_at: at(3), data: { role: 'assistant', text: 'Hello!' } },
  { id: eventId(4), run_id: RUN_ID_EXAMPLE, seq: 4, type: 'usage', created_at: at(4), data: { input_tokens: 1, output_tokens: 1, cost_micro_usd: 12 } },
  { id: eventId(5), run_id: RUN_ID_EXAMPLE, seq: 5, type: 'run.status', created_at: at(5), data: { status: 'completed' } },
];

export const RunEventListSchema = withExample(
  v2Page(RunEventSchema, {
    id: 'RunEventList',
    itemsDescription: 'In `seq` order.',
    nextCursorDescription:
      'Null once the run has ended and this page holds its last event; while it runs, the cursor to ask for later events with (even when `has_more` is false).',
  }),
  { data: EVENTS, page: { has_more: false, next_cursor: null } },
);

const frame = (event: (typeof EVENTS)[number]) => `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;

/** The event stream, the 200's `text/event-stream`: each message carries one `RunEvent`. */
export const RunEventStreamSchema = withExample(
  z.string().meta({
    description:
      'Server-Sent Events: `id: <event id>\\nevent: <type>\\ndata: <RunEvent JSON>\\n\\n` per event, and `: keepalive\\n\\n` comments while nothing happens.',
    // As the v1 stream's: OpenAPI 3.1 cannot give each event a schema, so the event's is a subschema (3.2's `itemSchema` can).
    $defs: { data: { $ref: '#/components/schemas/RunEvent' } },
  }),
  `${EVENTS.slice(0, 3).map(frame).join('')}: keepalive\n\n${EVENTS.slice(3).map(frame).join('')}`,
);

export const RunEventsOk: ResponseDoc = {
  description: 'A page of the run’s events (`application/json`), or their stream (`text/event-stream`), as `Accept` asks.',
  headers: {
    Vary: { description: 'The representation depends on `Accept`.', schema: { type: 'string', const: 'Accept' } },
    'X-Request-Id': { schema: { type: 'string' } },
  },
  schema: RunEventListSchema,
  alternatives: { 'text/event-stream': RunEventStreamSchema },
};
