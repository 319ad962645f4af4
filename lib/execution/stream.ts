import { DEADLINE_MARGIN_MS, FOLLOW_TIMING } from '#events/log.js';
import { isTerminalNode, isTerminalRequest, type NodeExecution, type RequestEvent, type WorkflowRequest } from './model.js';
import type { ReadMeter } from './request-events.js';
import { nodeEventView, requestEventView } from './views.js';

/**
 * The workflow-request parts of the live execution stream
 * (lib/execution/request-stream.ts; the follow loop itself is
 * lib/events/follow.ts): timing, payload shapes, the snapshot, and the read
 * counters.
 */
export const STREAM_TIMING = {
  /** `data: keepalive` period (specification, Events 5), gap grace, polling, idle re-reads, page size. */
  ...FOLLOW_TIMING,
  /** The stream ends this long before the Lambda invocation's deadline. */
  deadlineMarginMs: DEADLINE_MARGIN_MS,
} as const;

export type StreamPayload = RequestEvent['data'];

/** A payload whose `workflow_request.status` is completed, failed or stopped ends the stream (Events 6). */
export const isTerminalPayload = (payload: StreamPayload): boolean => isTerminalRequest(payload.workflow_request?.status);

/**
 * A finished request whose nodes are not all settled is still being
 * finished (the engine settles open nodes after moving the request to its
 * terminal state): a snapshot of it would show a final request over
 * unfinished nodes.
 */
export const snapshotSettled = (request: Pick<WorkflowRequest, 'status'>, nodes: readonly Pick<NodeExecution, 'status'>[]): boolean =>
  !isTerminalRequest(request.status) || nodes.every((n) => isTerminalNode(n.status));

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
