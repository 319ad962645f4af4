import { randomUUID } from 'node:crypto';
import type { Writable } from 'node:stream';
import type { Context } from 'aws-lambda';
import { authenticateBearer } from '#accounts/bearer.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { allowedMethods, matchRoute } from '#app/routes.js';
import { ownedRequest } from '#execution/access.js';
import { type RequestEventsReader, requestEventsReader, type WatermarkedRequest } from '#execution/request-events.js';
import {
  eventPayload,
  isTerminalPayload,
  isTerminalStatus,
  listenerMeter,
  nextPollDelay,
  parseLastEventId,
  planStart,
  requestPayload,
  resumeNeedsSnapshot,
  type SequencerState,
  STREAM_TIMING,
  sequenceEvents,
  snapshotPayloads,
  snapshotSettled,
  streamDeadline,
  streamMaxSeconds,
} from '#execution/stream.js';
import { EVENT_RETENTION_SECONDS } from '#execution/workflow-requests-repository.js';
import { serviceEnv } from '#platform/config/env.js';
import { ApiError, MethodNotAllowedError, NotFoundError } from '#platform/errors.js';
import { requestIdOf } from '#platform/http/handler.js';
import { errorResponse } from '#platform/http/problem.js';
import { header, noContent } from '#platform/http/responses.js';
import { answerWhole, endStream, jsonFrame, KEEPALIVE_FRAME, openEventStream, type StreamingEvent } from '#platform/http/streaming.js';
import { logger } from '#platform/observability/logger.js';
import { defaultTable, type TableRef } from '#platform/table/table.js';

export { streamMetrics } from '#execution/stream.js';

/**
 * `GET /v1/workflow-requests/{id}/listen`: the live execution stream
 * (specification, Events), served by the response-streaming function.
 *
 * Ids are the request's event log `seq`. Without a usable `Last-Event-ID`
 * the stream opens with a snapshot (every node execution, then the request,
 * each with `id:` = the log's watermark W read together with that state),
 * then follows the log after W. With `Last-Event-ID: N` it sends only
 * events after N. It ends after the terminal payload, before the function's
 * deadline (or STREAM_MAX_SECONDS), or when the client goes away.
 */
export interface ListenDeps {
  tokens: TokensRepo;
  table: TableRef;
  /** Stream lifetime in seconds, read per invocation. */
  maxSeconds: () => number;
  timing: typeof STREAM_TIMING;
}

const defaultDeps = (): ListenDeps => ({
  tokens: tokensRepo(),
  table: defaultTable(),
  maxSeconds: () => streamMaxSeconds(process.env),
  timing: STREAM_TIMING,
});

type EndReason = 'terminal' | 'deadline' | 'client_closed' | 'request_gone' | 'error';

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The request id of a listen path; the event may come from a function URL, which has no path parameters. */
function routeOf(event: StreamingEvent): { id: string | undefined } {
  const method = event.requestContext?.http?.method ?? 'GET';
  const path = event.rawPath ?? '/';
  const matched = matchRoute(method, path);
  if (matched?.route.id === 'WorkflowRequestsListen') return { id: matched.params.id ?? event.pathParameters?.id };
  const allowed = allowedMethods(path);
  if (allowed.length > 0) throw new MethodNotAllowedError(allowed);
  throw new NotFoundError(`No endpoint at ${method} ${path}.`);
}

async function serve(deps: ListenDeps, event: StreamingEvent, responseStream: Writable, context: Context): Promise<void> {
  const requestId = requestIdOf(event, randomUUID);
  const startedAt = Date.now();
  const timing = deps.timing;

  // --- Before the stream opens: every refusal is a whole problem document. ---
  let meter: ReturnType<typeof listenerMeter> | undefined;
  let reader: RequestEventsReader;
  let request: WatermarkedRequest;
  try {
    const { id } = routeOf(event);
    const principal = await authenticateBearer(deps.tokens, header(event.headers, 'authorization'));
    meter = listenerMeter(startedAt);
    reader = requestEventsReader(deps.table, meter);
    const listenReader = reader;
    request = await ownedRequest({ get: (requestId: string) => listenReader.requestWithWatermark(requestId) }, principal.accountId, id);
  } catch (error) {
    meter?.close();
    if (!(error instanceof ApiError)) logger().error('unhandled error', { error: error as Error, trace_id: requestId });
    await answerWhole(responseStream, errorResponse(error, requestId, serviceEnv, 'problem'), requestId);
    return;
  }

  const plan = planStart(parseLastEventId(header(event.headers, 'last-event-id')), request.event_seq, isTerminalStatus(request.status));
  if (plan.kind === 'caught_up') {
    meter.close();
    await answerWhole(responseStream, noContent(), requestId);
    return;
  }

  // --- The stream. ---
  const stream = openEventStream(responseStream, requestId);
  const stop = new AbortController();
  let reason: EndReason | undefined;
  const end = (why: EndReason) => {
    reason ??= why;
    stop.abort();
  };
  const onGone = () => end('client_closed');
  for (const s of new Set([responseStream, stream])) {
    s.once('close', onGone);
    s.once('error', onGone);
  }
  const deadline = streamDeadline(startedAt, deps.maxSeconds(), context.getRemainingTimeInMillis(), timing.deadlineMarginMs);
  const deadlineTimer = setTimeout(() => end('deadline'), Math.max(0, deadline - Date.now()));
  const writable = () => !stream.destroyed && !stream.writableEnded;
  let frames = 0;
  const write = async (chunk: string): Promise<void> => {
    if (!writable()) return;
    if (!stream.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          stream.off('drain', done);
          stop.signal.removeEventListener('abort', done);
          resolve();
        };
        stream.once('drain', done);
        stop.signal.addEventListener('abort', done, { once: true });
      });
    }
  };
  const keepalive = setInterval(() => {
    if (writable()) stream.write(KEEPALIVE_FRAME);
  }, timing.keepaliveMs);

  let state: SequencerState = { lastSeq: 0 };
  let allocatedUpTo = request.event_seq;
  let skipped = 0;
  /** When the request was (last) read in a terminal state; `allocatedUpTo` is that read's watermark. */
  let terminalSeenAt: number | undefined = isTerminalStatus(request.status) ? startedAt : undefined;

  /** Sends the snapshot in one write; true when the request is already over. */
  const sendSnapshot = async (read: WatermarkedRequest): Promise<boolean> => {
    let current = read;
    let nodes = await reader.nodes(current.id);
    // Caught while the engine is finishing the request: wait (briefly) for its nodes to settle.
    for (let waited = 0; !snapshotSettled(current, nodes) && waited < timing.gapGraceMs && !stop.signal.aborted; waited += timing.pollMinMs) {
      await sleep(timing.pollMinMs, stop.signal);
      current = (await reader.requestWithWatermark(current.id)) ?? current;
      nodes = await reader.nodes(current.id);
    }
    const payloads = snapshotPayloads(current, nodes);
    await write(payloads.map((p) => jsonFrame(p, current.event_seq)).join(''));
    frames += payloads.length;
    state = { lastSeq: current.event_seq };
    allocatedUpTo = current.event_seq;
    return isTerminalStatus(current.status);
  };

  try {
    let checkResume = false;
    if (plan.kind === 'snapshot') {
      if (await sendSnapshot(request)) end('terminal');
    } else {
      state = { lastSeq: plan.afterSeq };
      checkResume = true;
    }
    let delay: number = timing.pollMinMs;
    let lastProgress = Date.now();
    let lastCheck = Date.now();
    while (!stop.signal.aborted) {
      const page = await reader.eventsAfter(request.id, state.lastSeq, timing.pageSize);
      if (stop.signal.aborted) break;
      const now = Date.now();
      if (checkResume) {
        checkResume = false;
        const fallBack = resumeNeedsSnapshot({
          afterSeq: state.lastSeq,
          watermark: allocatedUpTo,
          firstSeq: page.events[0]?.seq,
          requestCreatedAt: request.created_at,
          nowMs: now,
          retentionSeconds: EVENT_RETENTION_SECONDS,
        });
        if (fallBack) {
          const current = await reader.requestWithWatermark(request.id);
          if (!current) {
            end('request_gone');
            break;
          }
          if (await sendSnapshot(current)) end('terminal');
          continue;
        }
      }
      const result = sequenceEvents(state, page.events, { nowMs: now, graceMs: timing.gapGraceMs, complete: page.complete, allocatedUpTo });
      state = result.state;
      skipped += result.skipped;
      for (const logged of result.deliver) {
        await write(jsonFrame(eventPayload(logged.data, request), logged.seq));
        frames += 1;
        if (isTerminalPayload(logged.data)) {
          end('terminal');
          break;
        }
      }
      if (stop.signal.aborted) break;
      if (result.deliver.length > 0 || result.skipped > 0) lastProgress = now;
      allocatedUpTo = Math.max(allocatedUpTo, state.lastSeq);

      // The request is over, everything it logged up to then is delivered,
      // and no terminal payload came: it was sent before the resume point,
      // or its event was lost. Confirm with a fresh read once the finisher
      // has had time to append its last events, then send the state.
      if (terminalSeenAt !== undefined && page.complete && state.lastSeq >= allocatedUpTo && now - terminalSeenAt >= timing.gapGraceMs) {
        const current = await reader.requestWithWatermark(request.id);
        if (!current) {
          end('request_gone');
          break;
        }
        if (current.event_seq <= state.lastSeq) {
          await write(jsonFrame(requestPayload(current), current.event_seq));
          frames += 1;
          end('terminal');
          break;
        }
        allocatedUpTo = current.event_seq;
        terminalSeenAt = now;
      } else if (terminalSeenAt === undefined && now - Math.max(lastProgress, lastCheck) >= timing.idleCheckMs) {
        lastCheck = now;
        const current = await reader.requestWithWatermark(request.id);
        if (!current) {
          end('request_gone');
          break;
        }
        allocatedUpTo = Math.max(allocatedUpTo, current.event_seq);
        if (isTerminalStatus(current.status)) terminalSeenAt = now;
      }
      delay = nextPollDelay(delay, result.deliver.length > 0, page.complete);
      if (delay > 0) await sleep(delay, stop.signal);
    }
  } catch (error) {
    // The client resumes with Last-Event-ID; nothing it has is lost.
    logger().error('stream failed', { error: error as Error, trace_id: requestId, workflow_request_id: request.id });
    end('error');
  } finally {
    clearTimeout(deadlineTimer);
    clearInterval(keepalive);
    for (const s of new Set([responseStream, stream])) {
      s.off('close', onGone);
      s.off('error', onGone);
    }
    await endStream(stream);
    meter.close();
    logger().info('stream closed', {
      trace_id: requestId,
      workflow_request_id: request.id,
      reason: reason ?? 'client_closed',
      start: plan.kind,
      last_event_id: state.lastSeq,
      duration_ms: Date.now() - startedAt,
      frames,
      skipped_seqs: skipped,
      queries: meter.queries,
      gets: meter.gets,
      read_units: meter.readUnits,
    });
  }
}

export const makeHandler = (deps: ListenDeps = defaultDeps()) =>
  awslambda.streamifyResponse<StreamingEvent>((event, responseStream, context) => serve(deps, event, responseStream, context));

export const handler = makeHandler();
