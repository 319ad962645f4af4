import * as z from 'zod';
import { withExample } from '#platform/http/common-schemas.js';
import type { ResponseDoc } from '#platform/http/contract.js';
import { NODE_STATUSES, REQUEST_STATUSES } from '../model.js';

const Failure = z.object({ code: z.string(), message: z.string() });

const REQUEST = { id: '7e9a1c3d-5f2b-4d6e-8a0c-2b4d6f8a0c1e', workflow_version_id: '9a3e5c71-2b4d-4e8f-8c1a-6d7e8f9a0b1c' };
const NODE = {
  id: '3d5f7b9c-1e2a-4c4e-9f6a-8b0d2f4a6c8e',
  node_id: '5b0c8e2a-7d41-4f3b-9a6e-000000000001',
  workflow_request_id: REQUEST.id,
  workflow_version_id: REQUEST.workflow_version_id,
};
const MESSAGES = [
  { node_execution: { ...NODE, status: 'in_progress', output_data: null, attempt_count: 1 } },
  { node_execution: { ...NODE, status: 'completed', output_data: { text: 'urgent' }, attempt_count: 1 } },
  { workflow_request: { ...REQUEST, status: 'completed', completed_at: '2026-01-31T09:40:02.400Z' } },
] as const;

/** What one `data:` line of the stream carries (specification, Events 4). */
const StreamPayloadSchema = withExample(
  z
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
    .meta({ id: 'WorkflowStreamPayload', description: 'The JSON of one stream message; either key may be absent.' }),
  MESSAGES[1],
);

/** GET /v1/workflow-requests/{id}/listen's 200: the event stream, whose messages carry a `WorkflowStreamPayload` each. */
export const EventStream: ResponseDoc = {
  description: 'The event stream.',
  headers: {
    'Cache-Control': { schema: { type: 'string', const: 'no-cache' } },
    'X-Request-Id': { schema: { type: 'string' } },
  },
  mediaType: 'text/event-stream',
  schema: withExample(
    z.string().meta({
      description:
        'Server-Sent Events: `id: <n>\\ndata: <JSON>\\n\\n` messages, the JSON being a `WorkflowStreamPayload` (`$defs/data`), and `data: keepalive\\n\\n`.',
      // JSON Schema's place for subschemas that assert nothing about the body itself:
      // OpenAPI 3.1 has no way to give a schema to each event (3.2's `itemSchema` does).
      $defs: { data: { $ref: '#/components/schemas/WorkflowStreamPayload' } },
    }),
    `id: 4\ndata: ${JSON.stringify(MESSAGES[0])}\n\ndata: keepalive\n\nid: 5\ndata: ${JSON.stringify(MESSAGES[1])}\n\nid: 6\ndata: ${JSON.stringify(MESSAGES[2])}\n\n`,
  ),
  // Not a response body (each `data:` line is one), so a component of its own.
  components: { WorkflowStreamPayload: StreamPayloadSchema },
};
