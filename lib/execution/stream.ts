import type { ReadMeter } from './request-events.js';
import { nodeEventView, requestEventView } from './views.js';
import { isTerminalNode, isTerminalRequest, type NodeExecution, type RequestEvent, type WorkflowRequest } from './workflow-requests-repository.js';

/**
 * The pure parts of the live execution stream
 * (functions/workflow-requests/listen.ts): timing, where a connection
 * starts, ordered delivery over the event log's gaps, payload shapes, and
 * the read counters.
 */
export const STREAM_TIMING = {
  /** `data: keepalive` period (specification, Events 5). */
  keepaliveMs: 3_000,
  /** How long a missing seq is waited for before it is skipped (its writer died between allocating and writing). */
  gapGraceMs: 5_000,
  /** Poll period right after an event arrived; doubles while idle up to `pollMaxMs`. */
  pollMinMs: 250,
  pollMaxMs: 1_000,
  /** While idle, the request itself is re-read this often (finds a terminal state whose event never got written). */
  idleCheckMs: 30_000,
  /** The stream ends this long before the Lambda invocation's deadline. */
  deadlineMarginMs: 10_000,
  /** The specification's connection time-out; STREAM_MAX_SECONDS overrides it. */
  defaultMaxSeconds: 1_800,
  /** Events per Query. */
  pageSize: 100,
} as const;

export type StreamPayload = RequestEvent['data'];

/** `Last-Event-ID` as a seq: a non-negative integer, else absent. */
export function parseLastEventId(value: string | undefined): number | undefined {
  const text = value?.trim();
  if (!text || !/^\d{1,15}$/.test(text)) return undefined;
  const seq = Number(text);
  return Number.isSafeInteger(seq) ? seq : undefined;
}

/** STREAM_MAX_SECONDS (read per invocation), or the specification's 30 minutes. */
export function streamMaxSeconds(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.STREAM_MAX_SECONDS);
  return Number.isFinite(value) && value > 0 ? value : STREAM_TIMING.defaultMaxSeconds;
}

/**
 * When the stream ends: after `maxSeconds`, or `marginMs` before the
 * invocation's deadline, whichever comes first.
 */
export function streamDeadline(startMs: number, maxSeconds: number, remainingMs: number, marginMs: number = STREAM_TIMING.deadlineMarginMs): number {
  return startMs + Math.max(0, Math.min(maxSeconds * 1000, remainingMs - marginMs));
}

export const isTerminalStatus = isTerminalRequest;

/** A payload whose `workflow_request.status` is completed, failed or stopped ends the stream (Events 6). */
export const isTerminalPayload = (payload: StreamPayload): boolean => isTerminalStatus(payload.workflow_request?.status);

/**
 * A finished request whose nodes are not all settled is still being
 * finished (the engine settles open nodes after moving the request to its
 * terminal state): a snapshot of it would show a final request over
 * unfinished nodes.
 */
export const snapshotSettled = (request: Pick<WorkflowRequest, 'status'>, nodes: readonly Pick<NodeExecution, 'status'>[]): boolean =>
  !isTerminalStatus(request.status) || nodes.every((n) => isTerminalNode(n.status));

export type StartPlan =
  /** Send every node execution and the request (each with `id: watermark`), then events after the watermark. */
  | { kind: 'snapshot' }
  /** Send only events after `afterSeq`: the client has everything up to it. */
  | { kind: 'resume'; afterSeq: number }
  /** The request is over and the client has all of it: 204, which tells EventSource not to reconnect. */
  | { kind: 'caught_up' };

/**
 * Where a connection starts. A Last-Event-ID beyond the watermark was never
 * issued by this stream, so it is treated as absent.
 */
export function planStart(lastEventId: number | undefined, watermark: number, terminal: boolean): StartPlan {
  if (lastEventId === undefined || lastEventId > watermark) return { kind: 'snapshot' };
  if (terminal && lastEventId === watermark) return { kind: 'caught_up' };
  return { kind: 'resume', afterSeq: lastEventId };
}

/**
 * On resume, `afterSeq + 1` had to exist if the watermark is past it. When
 * the first event found is later, it was either not written yet or lost
 * (a gap, handled by the grace period) or expired with the log's retention.
 * Only a request older than the retention can have expired events; then
 * the client gets a snapshot instead, since what it missed is gone.
 */
export function resumeNeedsSnapshot(options: {
  afterSeq: number;
  watermark: number;
  firstSeq: number | undefined;
  requestCreatedAt: string;
  nowMs: number;
  retentionSeconds: number;
}): boolean {
  const { afterSeq, watermark, firstSeq } = options;
  if (afterSeq >= watermark || firstSeq === afterSeq + 1) return false;
  return Date.parse(options.requestCreatedAt) <= options.nowMs - options.retentionSeconds * 1000;
}

export interface SequencerState {
  /** Last seq delivered or given up on. */
  lastSeq: number;
  /** Since when `lastSeq + 1` has been missing. */
  holeSince?: number;
}

/**
 * Strictly ordered delivery over an event log that may have holes. Events
 * come from a query of `seq > lastSeq`; `lastSeq + 1` is delivered next.
 * A missing seq is waited for up to `graceMs` from when it was first seen
 * missing, then skipped. It is known to be missing when a later event
 * exists, or, when the page was complete, when the watermark
 * (`allocatedUpTo`) says it was allocated.
 */
export function sequenceEvents(
  state: SequencerState,
  events: readonly RequestEvent[],
  options: { nowMs: number; graceMs: number; complete: boolean; allocatedUpTo: number },
): { deliver: RequestEvent[]; state: SequencerState; skipped: number } {
  const { nowMs, graceMs } = options;
  let last = state.lastSeq;
  let holeSince = state.holeSince;
  let skipped = 0;
  const deliver: RequestEvent[] = [];
  const ordered = [...events].filter((e) => e.seq > last).sort((a, b) => a.seq - b.seq);
  for (const event of ordered) {
    if (event.seq <= last) continue; // the same seq twice
    if (event.seq !== last + 1) {
      holeSince ??= nowMs;
      if (nowMs - holeSince < graceMs) return { deliver, state: { lastSeq: last, holeSince }, skipped };
      skipped += event.seq - last - 1;
    }
    deliver.push(event);
    last = event.seq;
    holeSince = undefined;
  }
  if (options.complete && options.allocatedUpTo > last) {
    holeSince ??= nowMs;
    if (nowMs - holeSince >= graceMs) {
      skipped += options.allocatedUpTo - last;
      last = options.allocatedUpTo;
      holeSince = undefined;
    }
  }
  return { deliver, state: holeSince === undefined ? { lastSeq: last } : { lastSeq: last, holeSince }, skipped };
}

/** Back-off between polls: at once for the next page, fast after activity, slower while idle. */
export function nextPollDelay(previousMs: number, delivered: boolean, complete: boolean): number {
  if (!complete) return 0;
  if (delivered) return STREAM_TIMING.pollMinMs;
  return Math.min(Math.max(previousMs, STREAM_TIMING.pollMinMs / 2) * 2, STREAM_TIMING.pollMaxMs);
}

/** The request as stream payload (specification, Events 4: a subset). */
export const requestPayload = (request: WorkflowRequest): StreamPayload => ({ workflow_request: requestEventView(request) });

/**
 * A node execution as stream payload. Logged events carry the engine's
 * `nodeEventView`; snapshot and live payloads both also name their request
 * and version.
 */
export function nodePayload(node: Record<string, unknown>, request: Pick<WorkflowRequest, 'id' | 'workflow_version_id'>): Record<string, unknown> {
  return { ...node, workflow_request_id: node.workflow_request_id ?? request.id, workflow_version_id: node.workflow_version_id ?? request.workflow_version_id };
}

/** What a logged event is sent as. */
export function eventPayload(data: StreamPayload, request: Pick<WorkflowRequest, 'id' | 'workflow_version_id'>): StreamPayload {
  return data.node_execution ? { ...data, node_execution: nodePayload(data.node_execution, request) } : data;
}

/**
 * The snapshot: every node execution (in the order they started, not yet
 * started ones last), then the request, so a terminal request's payload
 * comes last.
 */
export function snapshotPayloads(request: WorkflowRequest, nodes: readonly NodeExecution[]): StreamPayload[] {
  const order = (n: NodeExecution) => n.started_at ?? '\uffff';
  const sorted = [...nodes].sort((a, b) => order(a).localeCompare(order(b)) || a.node_id.localeCompare(b.node_id));
  return [...sorted.map((n) => ({ node_execution: nodePayload(nodeEventView(n), request) })), requestPayload(request)];
}

/**
 * Read counters of every stream of this process, for the bench and tests:
 * `perListenerSecond()` is the polling cost of one listener.
 */
export const streamMetrics = {
  streams: 0,
  queries: 0,
  gets: 0,
  /** As DynamoDB reports it (ReturnConsumedCapacity TOTAL). */
  readUnits: 0,
  closedListenerMs: 0,
  open: new Map<symbol, number>(),
  reset(): void {
    this.streams = this.queries = this.gets = this.readUnits = this.closedListenerMs = 0;
    this.open.clear();
  },
  listenerSeconds(nowMs = Date.now()): number {
    let ms = this.closedListenerMs;
    for (const started of this.open.values()) ms += nowMs - started;
    return ms / 1000;
  },
  perListenerSecond(nowMs = Date.now()): { queries: number; gets: number; readUnits: number } {
    const seconds = this.listenerSeconds(nowMs) || 1;
    return { queries: this.queries / seconds, gets: this.gets / seconds, readUnits: this.readUnits / seconds };
  },
};

/** One listener's reads, counted into `streamMetrics` as well. */
export function listenerMeter(nowMs = Date.now()) {
  const key = Symbol('listener');
  streamMetrics.streams += 1;
  streamMetrics.open.set(key, nowMs);
  const meter = {
    queries: 0,
    gets: 0,
    readUnits: 0,
    record(operation: 'query' | 'get', readUnits: number): void {
      if (operation === 'query') {
        meter.queries += 1;
        streamMetrics.queries += 1;
      } else {
        meter.gets += 1;
        streamMetrics.gets += 1;
      }
      meter.readUnits += readUnits;
      streamMetrics.readUnits += readUnits;
    },
    /** Ends the listener's time. */
    close(endMs = Date.now()): void {
      const started = streamMetrics.open.get(key);
      if (started === undefined) return;
      streamMetrics.open.delete(key);
      streamMetrics.closedListenerMs += endMs - started;
    },
  } satisfies ReadMeter & Record<string, unknown>;
  return meter;
}
