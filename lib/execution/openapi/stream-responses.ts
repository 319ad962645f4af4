import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';
import type { Common } from '#platform/openapi/common.js';

const Failure = z.object({ code: z.string(), message: z.string() });

/** What one `data:` line of the stream carries (specification, Events 4). */
export const StreamPayloadSchema = z
  .object({
    workflow_request: z
      .object({
        id: z.string(),
        status: z.enum(['pending', 'in_progress', 'waiting', 'completed', 'failed', 'stopped']),
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
        status: z.enum(['pending', 'in_progress', 'blocked', 'waiting', 'completed', 'failed', 'skipped', 'stopped']),
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

export function registerWorkflowRequestStreamPaths(registry: OpenAPIRegistry, common: Common): void {
  // Not a response body (each `data:` line is one), so registered as a component by hand.
  const { $schema: _dialect, ...payload } = z.toJSONSchema(StreamPayloadSchema, { target: 'draft-2020-12', io: 'output' });
  const streamPayload = registry.registerComponent('schemas', 'WorkflowStreamPayload', payload as never);
  registry.registerPath({
    method: 'get',
    path: '/v1/workflow-requests/{id}/listen',
    operationId: 'listenWorkflowRequest',
    summary: 'Live execution stream (Server-Sent Events)',
    description: [
      'A `text/event-stream`. Each message is `id: <n>` and `data: <JSON>` (a `WorkflowStreamPayload`) followed by a blank line; ids are the request’s event sequence numbers and increase.',
      'Without `Last-Event-ID` the stream starts with a snapshot: every node execution, then the workflow request, all with the same id (the sequence number the snapshot is current at). Then every update follows as it happens.',
      'With `Last-Event-ID: <n>` (a non-negative integer this stream sent; anything else is ignored) no snapshot is sent, only the updates after `n`, unless they have expired (the event log is kept 7 days): then the snapshot comes instead.',
      '`data: keepalive` (not JSON, no id) is sent every 3 seconds.',
      'The stream closes after a payload whose `workflow_request.status` is `completed`, `failed` or `stopped`. It also closes after 30 minutes, and in AWS before the streaming function’s 15-minute limit; reconnect with `Last-Event-ID` to continue where it stopped. A reconnect to a finished request the client has all of is answered 204, which tells EventSource clients to stop reconnecting.',
    ].join('\n\n'),
    tags: ['Workflow requests'],
    security: common.bearer,
    request: {
      params: z.object({ id: z.string().meta({ description: 'The workflow request id. A malformed, unknown or other account’s id answers the same 404.' }) }),
      headers: z.object({ 'Last-Event-ID': z.string().optional().meta({ description: 'The id of the last message received: resume after it.' }) }),
    },
    responses: {
      200: {
        description: 'The event stream.',
        headers: {
          'Cache-Control': { schema: { type: 'string', const: 'no-cache' } },
          'X-Request-Id': { schema: { type: 'string' } },
        },
        content: {
          'text/event-stream': {
            schema: z.string().meta({
              description:
                'Server-Sent Events: `id: <n>\\ndata: <JSON>\\n\\n` messages, the JSON being a `WorkflowStreamPayload` (`$defs/data`), and `data: keepalive\\n\\n`.',
              // JSON Schema's place for subschemas that assert nothing about the body itself:
              // OpenAPI 3.1 has no way to give a schema to each event (3.2's `itemSchema` does).
              $defs: { data: streamPayload.ref },
              example:
                'id: 4\ndata: {"node_execution":{"id":"…","node_id":"…","status":"completed","output_data":{"n":5},"attempt_count":1,"workflow_request_id":"…","workflow_version_id":"…"}}\n\n' +
                'data: keepalive\n\n' +
                'id: 6\ndata: {"workflow_request":{"id":"…","status":"completed","workflow_version_id":"…","completed_at":"2026-01-01T00:00:00.000Z"}}\n\n',
            }),
          },
        },
      },
      204: { description: 'Resumed (`Last-Event-ID`) after the end of a finished request: nothing more will come.' },
      401: common.problems.unauthorized('Missing, malformed, expired or revoked token (`unauthorized`).'),
      403: common.problems.suspended,
      404: common.problem('No such workflow request, a malformed id, or another account’s (indistinguishable, `not_found`).'),
      500: common.problems.internal,
    },
  });
}
