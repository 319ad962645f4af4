import * as z from 'zod';
import type { ResponseDoc } from '#platform/http/contract.js';
import { NODE_STATUSES, REQUEST_STATUSES } from '../model.js';

const Failure = z.object({ code: z.string(), message: z.string() });

/** What one `data:` line of the stream carries (specification, Events 4). */
const StreamPayloadSchema = z
  .object({
    workflow_request: z
      .object({
        id: z.string(),
        status: z.enum(REQUEST_STATUSES),
        workflow_version_id: z.string(),
        completed_at: z.string().optional(),
        error: Failure.optional(),
      })
      .optional()
      .meta({ description: 'A subset of the workflow request. A status of `completed`, `failed` or `stopped` is terminal: the stream closes after it.' }),
    node_execution: z
      .object({
        id: z.string(),
        node_id: z.string(),
        status: z.enum(NODE_STATUSES),
        output_data: z.unknown(),
        attempt_count: z.number().int(),
        error: Failure.optional(),
        workflow_request_id: z.string(),
        workflow_version_id: z.string(),
      })
      .optional()
      .meta({ description: 'A subset of the node execution.' }),
  })
  .meta({ description: 'The JSON of one stream message; either key may be absent.' });

/** GET /v1/workflow-requests/{id}/listen's 200: the event stream, whose messages carry a `WorkflowStreamPayload` each. */
export const EventStream: ResponseDoc = {
  description: 'The event stream.',
  headers: {
    'Cache-Control': { schema: { type: 'string', const: 'no-cache' } },
    'X-Request-Id': { schema: { type: 'string' } },
  },
  mediaType: 'text/event-stream',
  schema: z.string().meta({
    description:
      'Server-Sent Events: `id: <n>\\ndata: <JSON>\\n\\n` messages, the JSON being a `WorkflowStreamPayload` (`$defs/data`), and `data: keepalive\\n\\n`.',
    // JSON Schema's place for subschemas that assert nothing about the body itself:
    // OpenAPI 3.1 has no way to give a schema to each event (3.2's `itemSchema` does).
    $defs: { data: { $ref: '#/components/schemas/WorkflowStreamPayload' } },
    example:
      'id: 4\ndata: {"node_execution":{"id":"…","node_id":"…","status":"completed","output_data":{"n":5},"attempt_count":1,"workflow_request_id":"…","workflow_version_id":"…"}}\n\n' +
      'data: keepalive\n\n' +
      'id: 6\ndata: {"workflow_request":{"id":"…","status":"completed","workflow_version_id":"…","completed_at":"2026-01-01T00:00:00.000Z"}}\n\n',
  }),
  // Not a response body (each `data:` line is one), so a component of its own.
  components: { WorkflowStreamPayload: StreamPayloadSchema },
};
