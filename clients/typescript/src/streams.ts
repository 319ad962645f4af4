import type { EventSourceMessage } from 'eventsource-parser';
import type { components } from './schema.js';
import type { EventStream } from './sse.js';

type Schemas = components['schemas'];

/** One event of a run (`GET /v2/runs/{id}/events`), a union on `type`. */
export type RunEvent = Schemas['RunEvent'];

/** A message of a workflow request's live stream (`GET /v1/workflow-requests/{id}/listen`). */
export interface WorkflowStreamEvent {
  /** The SSE `id:`: the request's event sequence number at this message (a snapshot's messages share one). */
  id: string;
  /** `workflow_request` and/or `node_execution`, each a subset of its resource. */
  data: Schemas['WorkflowStreamPayload'];
}

const RUN_ENDS: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);
const REQUEST_ENDS: ReadonlySet<string> = new Set(['completed', 'failed', 'stopped']);

const path = (template: string, id: string) => template.replace('{id}', encodeURIComponent(id));

/** The events of a run: `id:`, `event: <type>`, `data: <RunEvent>`; closed after its terminal `run.status`. */
export function runEventStream(baseUrl: string, runId: string): EventStream<RunEvent> {
  return {
    url: `${baseUrl}${path('/v2/runs/{id}/events', runId)}`,
    parse: (message) => JSON.parse(message.data) as RunEvent,
    isLast: (event) => event.type === 'run.status' && 'status' in event.data && RUN_ENDS.has(event.data.status),
    resumeAfter: (event, message) => message.id ?? event.id,
  };
}

/**
 * The live execution stream of a workflow request: `id: <seq>`, `data: <WorkflowStreamPayload>`,
 * and `data: keepalive` (skipped); closed after a payload whose `workflow_request.status` is
 * terminal. Without `Last-Event-ID` it opens with a snapshot, every node execution then the
 * request, all with one id: a connection that drops inside it resumes before that id, so the
 * snapshot is not cut short. Since an update is resumed after only once the next message (or
 * a `workflow_request`) shows it complete, a reconnect may repeat the last `node_execution`
 * update, a state that is harmless to apply twice.
 */
export function requestEventStream(baseUrl: string, requestId: string, lastEventId: string | undefined): EventStream<WorkflowStreamEvent> {
  /** The id of the messages being received, and the last id whose every message has been. */
  let current: string | undefined;
  let complete = lastEventId;
  return {
    url: `${baseUrl}${path('/v1/workflow-requests/{id}/listen', requestId)}`,
    parse: (message: EventSourceMessage) =>
      message.data === 'keepalive' ? undefined : { id: message.id ?? '', data: JSON.parse(message.data) as Schemas['WorkflowStreamPayload'] },
    isLast: (event) => REQUEST_ENDS.has(event.data.workflow_request?.status ?? ''),
    resumeAfter: (event) => {
      if (event.id !== current) {
        complete = current ?? complete;
        current = event.id;
      }
      if (event.data.workflow_request) complete = event.id;
      return complete;
    },
  };
}
