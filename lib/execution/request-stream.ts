import { type EventLogSource, type FollowEnd, follow, sse } from '#events/follow.js';
import { parseLastEventId, planStart, streamDeadline, streamMaxSeconds } from '#events/log.js';
import type { ApiRequest } from '#platform/http/handler.js';
import { header, noContent } from '#platform/http/responses.js';
import { EVENT_STREAM_HEADERS, type StreamingResult, streamBody } from '#platform/http/streaming.js';
import type { HttpResult } from '#platform/http/types.js';
import { logger } from '#platform/observability/logger.js';
import { defaultTable, type TableRef } from '#platform/table/table.js';
import { ownedRequest } from './access.js';
import { isTerminalRequest } from './model.js';
import { type RequestEventsReader, requestEventsReader, type WatermarkedRequest } from './request-events.js';
import { EVENT_RETENTION_SECONDS } from './request-log.js';
import {
  eventPayload,
  isTerminalPayload,
  listenerMeter,
  requestPayload,
  resumeNeedsSnapshot,
  STREAM_TIMING,
  type StreamPayload,
  snapshotPayloads,
  snapshotSettled,
} from './stream.js';

/** A workflow request read with its event log watermark, as the follow loop sees it. */
export type RequestHead = { request: WatermarkedRequest; watermark: number; terminal: boolean };

const headOf = (request: WatermarkedRequest): RequestHead => ({ request, watermark: request.event_seq, terminal: isTerminalRequest(request.status) });

/**
 * A workflow request's event log as `follow` reads it (lib/events/follow.ts):
 * the request with its watermark, the snapshot (its node executions, then
 * itself), and the logged events as stream payloads.
 */
export function requestEventSource(reader: RequestEventsReader, request: WatermarkedRequest): EventLogSource<StreamPayload, RequestHead> {
  // Seqs known to end a page: reading on from one of them needs no look back (request-events.ts, eventsAfter).
  const pageEnds = new Set([0, request.event_seq]);
  // The request's redrives as last read: an end logged before the latest of them is not its end any more (redrive.ts).
  let redrives = request.redrive_count ?? 0;
  return {
    head: async () => {
      const current = await reader.requestWithWatermark(request.id);
      if (current) {
        pageEnds.add(current.event_seq);
        redrives = Math.max(redrives, current.redrive_count ?? 0);
      }
      return current && headOf(current);
    },
    snapshot: async ({ request: current }) => {
      const nodes = await reader.nodes(current.id);
      return { payloads: snapshotPayloads(current, nodes), settled: snapshotSettled(current, nodes) };
    },
    eventsAfter: async (afterSeq, limit) => {
      const page = await reader.eventsAfter(request.id, afterSeq, limit, pageEnds.has(afterSeq));
      if (page.pageEnd !== undefined) pageEnds.add(page.pageEnd);
      return { events: page.events.map((e) => ({ seq: e.seq, data: eventPayload(e.data, request) })), complete: page.complete };
    },
    isTerminal: (payload) => isTerminalPayload(payload) && Number(payload.workflow_request?.redrive_count ?? 0) >= redrives,
    finalPayload: ({ request: current }) => requestPayload(current),
    resumeNeedsSnapshot: (resume) => resumeNeedsSnapshot({ ...resume, requestCreatedAt: request.created_at, retentionSeconds: EVENT_RETENTION_SECONDS }),
  };
}

export interface RequestStreamDeps {
  table: TableRef;
  /** Stream lifetime in seconds, read per invocation. */
  maxSeconds: () => number;
  timing: typeof STREAM_TIMING;
}

export const requestStreamDeps = (): RequestStreamDeps => ({ table: defaultTable(), maxSeconds: () => streamMaxSeconds(process.env), timing: STREAM_TIMING });

/**
 * `GET /v1/workflow-requests/{id}/listen`: the live execution stream
 * (specification, Events) of the caller's request.
 *
 * Ids are the request's event log `seq`. Without a usable `Last-Event-ID`
 * the stream opens with a snapshot (every node execution, then the request,
 * each with `id:` = the log's watermark W read together with that state),
 * then follows the log after W. With `Last-Event-ID: N` it sends only
 * events after N; a client that has all of a finished request gets 204. It
 * ends after the terminal payload, before the function's deadline (or
 * STREAM_MAX_SECONDS), or when the client goes away.
 */
export async function requestStream(
  deps: RequestStreamDeps,
  { event, context, principal, requestId, params }: ApiRequest<undefined, unknown>,
): Promise<HttpResult | StreamingResult> {
  const startedAt = Date.now();
  const meter = listenerMeter(startedAt);
  const reader = requestEventsReader(deps.table, meter);
  let request: WatermarkedRequest;
  try {
    request = await ownedRequest({ get: (id: string) => reader.requestWithWatermark(id) }, principal.accountId, params.id);
  } catch (error) {
    meter.close();
    throw error;
  }
  const head = headOf(request);
  const plan = planStart(parseLastEventId(header(event.headers, 'last-event-id')), head.watermark, head.terminal);
  if (plan.kind === 'caught_up') {
    meter.close();
    return noContent();
  }
  const deadline = streamDeadline(startedAt, deps.maxSeconds(), context.getRemainingTimeInMillis(), deps.timing.deadlineMarginMs);
  const closed = (end: FollowEnd) => {
    meter.close();
    const trace = { trace_id: requestId, workflow_request_id: request.id };
    // The client resumes with Last-Event-ID; nothing it has is lost.
    if (end.reason === 'error') logger().error('stream failed', { ...trace, error: end.error as Error });
    logger().info('stream closed', {
      ...trace,
      reason: end.reason === 'gone' ? 'request_gone' : end.reason,
      start: plan.kind,
      last_event_id: end.lastSeq,
      duration_ms: Date.now() - startedAt,
      frames: end.frames,
      skipped_seqs: end.skipped,
      queries: meter.queries,
      gets: meter.gets,
      read_units: meter.readUnits,
    });
  };
  const after = plan.kind === 'resume' ? plan.afterSeq : undefined;
  const source = requestEventSource(reader, request);
  const body = streamBody((signal) => sse(follow(source, { head, after, deadline, timing: deps.timing, signal, onEnd: closed })));
  // Ends the listener's time even if the body is never read.
  body.once('close', () => meter.close());
  return { statusCode: 200, headers: { ...EVENT_STREAM_HEADERS }, body };
}
