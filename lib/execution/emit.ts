import { nodeEventView, requestEventView } from './views.js';
import type { NodeExecution, RequestEvent, WorkflowRequest, WorkflowRequestsRepo } from './workflow-requests-repository.js';

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
 */
export class EventBuffer {
  private readonly pending = new Map<string, Array<RequestEvent['data']>>();
  private readonly next = new Map<string, number>();

  constructor(hints: Array<[requestId: string, nextSeq: number]> = []) {
    for (const [requestId, seq] of hints) this.next.set(requestId, seq);
  }

  push(requestId: string, data: RequestEvent['data']): void {
    const list = this.pending.get(requestId) ?? [];
    list.push(data);
    this.pending.set(requestId, list);
  }

  /** Where the request's log continues after this invocation's last flush, when known. */
  nextSeq(requestId: string): number | undefined {
    return this.next.get(requestId);
  }

  async flush(requests: WorkflowRequestsRepo): Promise<void> {
    const batches = [...this.pending];
    this.pending.clear();
    for (const [requestId, data] of batches) {
      const written = await requests.appendEvents(requestId, data, this.next.get(requestId));
      const last = written.at(-1);
      if (last) this.next.set(requestId, last.seq + 1);
    }
  }
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
