import type { NodeExecution, RequestEvent, WorkflowRequest } from './model.js';
import { nodeEventView, requestEventView } from './views.js';
import type { WorkflowRequestsRepo } from './workflow-requests-repository.js';

/**
 * Collects the events of one worker invocation and appends them per request
 * in as few page writes as fit, in the order they happened. State is always
 * written before its event, so a crash before a flush loses notifications,
 * never state: a listener's next snapshot, or its idle re-read of the
 * request, shows it.
 *
 * It also remembers where each request's log continues: after its own
 * flush, or from the hint the task arrived with (the seq the enqueuing
 * invocation's flush ended at), so a flush usually needs no read first.
 *
 * An invocation whose request goes on in one queued task only may hand its
 * events on to that task instead of flushing them (`handOver`,
 * propagate.ts), so a chain of queued nodes writes one page for several of
 * them; the task's invocation starts with them (`received`) and logs them
 * first, before its own. Events wait so at most LATE_FLUSH_MS in buffers
 * (late-flush.ts), the queue's own delay aside. The same events may then be
 * appended by more than one delivery (a task redelivered, or sent again by
 * a redelivered parent): such a flush is told their identity
 * (`eventIdentity`), so the log holds each of them once.
 */
export class EventBuffer {
  private readonly pending = new Map<string, Array<RequestEvent['data']>>();
  /** When each request's oldest pending event happened (epoch ms). */
  private readonly since = new Map<string, number>();
  private readonly next = new Map<string, number>();
  /** Requests whose pending events came, in part, with the task: appended without duplicates. */
  private readonly handedIn = new Set<string>();

  constructor(hints: Array<[requestId: string, nextSeq: number]> = [], received?: { requestId: string } & HandedOver['events']) {
    for (const [requestId, seq] of hints) this.next.set(requestId, seq);
    if (received && received.data.length > 0) {
      this.pending.set(received.requestId, [...received.data]);
      this.since.set(received.requestId, received.since);
      this.handedIn.add(received.requestId);
    }
  }

  push(requestId: string, data: RequestEvent['data']): void {
    const list = this.pending.get(requestId) ?? [];
    list.push(data);
    this.pending.set(requestId, list);
    if (!this.since.has(requestId)) this.since.set(requestId, Date.now());
  }

  /** Where the request's log continues after this invocation's last flush, when known. */
  nextSeq(requestId: string): number | undefined {
    return this.next.get(requestId);
  }

  /** When the oldest event still pending here happened (epoch ms), if any is. */
  oldest(): number | undefined {
    const times = [...this.since.values()];
    return times.length > 0 ? Math.min(...times) : undefined;
  }

  /**
   * The request's pending events and where its log continues, taken out of
   * the buffer for the one task the request goes on with; undefined (left
   * to a flush) unless that seq is known (the task's flush then knows where
   * they belong, and a second copy of them is recognised there), the oldest
   * of them is younger than `maxAgeMs` and they fit in `maxBytes` of JSON.
   */
  handOver(requestId: string, limits: { maxAgeMs: number; maxBytes: number }): HandedOver | undefined {
    const seq = this.next.get(requestId);
    const data = this.pending.get(requestId) ?? [];
    const since = this.since.get(requestId) ?? Date.now();
    if (seq === undefined || data.length === 0 || Date.now() - since >= limits.maxAgeMs) return undefined;
    if (Buffer.byteLength(JSON.stringify(data)) > limits.maxBytes) return undefined;
    this.pending.delete(requestId);
    this.since.delete(requestId);
    this.handedIn.delete(requestId);
    // Whatever this invocation still logs for the request goes after the handed-over events: where, it learns by reading.
    this.next.delete(requestId);
    return { seq, events: { since, data } };
  }

  /** Events handed over that their task did not take (it could not be sent): back in front, to be flushed from where they were to go. */
  takeBack(requestId: string, handed: HandedOver): void {
    this.pending.set(requestId, [...handed.events.data, ...(this.pending.get(requestId) ?? [])]);
    this.since.set(requestId, handed.events.since);
    this.next.set(requestId, handed.seq);
    this.handedIn.add(requestId);
  }

  async flush(requests: Pick<WorkflowRequestsRepo, 'appendEvents'>): Promise<void> {
    const batches = [...this.pending];
    const handedIn = new Set(this.handedIn);
    this.pending.clear();
    this.since.clear();
    this.handedIn.clear();
    for (const [requestId, data] of batches) {
      const hint = this.next.get(requestId);
      const written = await requests.appendEvents(requestId, data, hint, handedIn.has(requestId) ? { identity: eventIdentity } : undefined);
      const last = written.at(-1);
      if (last) this.next.set(requestId, last.seq + 1);
      // All of them were logged already, by another delivery: where the log continues now is unknown.
      else this.next.delete(requestId);
    }
  }
}

/** Events handed on with a task (NodeTask `events`), and where the request's log continued then (its `seq`). */
export interface HandedOver {
  seq: number;
  events: { since: number; data: Array<RequestEvent['data']> };
}

/** The same for the same state change whoever logs it: the node execution (or request), its status and, for a node, its attempt. */
export function eventIdentity(data: RequestEvent['data']): string {
  const node = data.node_execution;
  if (node) return `node ${String(node.id)} ${String(node.status)} ${String(node.attempt_count)}`;
  return `request ${String(data.workflow_request?.id)} ${String(data.workflow_request?.status)}`;
}

export interface EmitDeps {
  requests: WorkflowRequestsRepo;
  events?: EventBuffer;
}

async function emit(deps: EmitDeps, requestId: string, data: RequestEvent['data']): Promise<void> {
  if (deps.events) deps.events.push(requestId, data);
  else await deps.requests.appendEvent(requestId, data);
}

/** A node change for the request's event log (what listeners stream). */
export const emitNode = (deps: EmitDeps, node: NodeExecution): Promise<void> => emit(deps, node.workflow_request_id, { node_execution: nodeEventView(node) });

/** A request change for its event log. */
export const emitRequest = (deps: EmitDeps, request: WorkflowRequest): Promise<void> => emit(deps, request.id, { workflow_request: requestEventView(request) });
