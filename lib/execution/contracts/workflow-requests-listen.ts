import { defineEndpoint } from '#platform/http/contract.js';
import { WORKFLOW_REQUESTS_TAG } from './tags.js';

export const WorkflowRequestsListen = defineEndpoint({
  id: 'WorkflowRequestsListen',
  method: 'GET',
  path: '/v1/workflow-requests/{id}/listen',
  handler: 'functions/workflow-requests/listen.ts',
  auth: 'bearer',
  params: { id: { description: 'The workflow request id. A malformed, unknown or other account’s id answers the same 404.' } },
  headers: { 'Last-Event-ID': { description: 'The id of the last message received: resume after it.' } },
  streaming: true,
  table: 'read',
  timeoutSeconds: 900,
  operationId: 'listenWorkflowRequest',
  summary: 'Live execution stream (Server-Sent Events)',
  description: [
    'A `text/event-stream`. Each message is `id: <n>` and `data: <JSON>` (a `WorkflowStreamPayload`) followed by a blank line; ids are the request’s event sequence numbers and increase.',
    'Without `Last-Event-ID` the stream starts with a snapshot: every node execution, then the workflow request, all with the same id (the sequence number the snapshot is current at). Then every update follows as it happens.',
    'With `Last-Event-ID: <n>` (a non-negative integer this stream sent; anything else is ignored) no snapshot is sent, only the updates after `n`, unless they have expired (the event log is kept 7 days): then the snapshot comes instead.',
    '`data: keepalive` (not JSON, no id) is sent every 3 seconds.',
    'The stream closes after a payload whose `workflow_request.status` is `completed`, `failed` or `stopped`. It also closes after 30 minutes, and in AWS before the streaming function’s 15-minute limit; reconnect with `Last-Event-ID` to continue where it stopped. A reconnect to a finished request the client has all of is answered 204, which tells EventSource clients to stop reconnecting.',
  ].join('\n\n'),
  tags: [WORKFLOW_REQUESTS_TAG],
  responses: () =>
    import('../openapi/stream-responses.js').then(({ EventStream }) => ({
      200: EventStream,
      204: { description: 'Resumed (`Last-Event-ID`) after the end of a finished request: nothing more will come.' },
      404: 'No such workflow request, a malformed id, or another account’s (indistinguishable, `not_found`).',
    })),
});
