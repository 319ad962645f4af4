import { EventBuffer } from './emit.js';
import type { EngineDeps, Invocation } from './invocation.js';
import { LATE_FLUSH_MS } from './late-flush.js';
import type { RequestEvent } from './model.js';
import type { NodeTask } from './node-queue.js';
import { flushDeferredMarks } from './propagate.js';
import { markRequestStarted, runNode } from './run-node.js';

export type { EngineDeps, Invocation } from './invocation.js';

/**
 * Processes one node task under at-least-once delivery, in an invocation
 * context of its own: run the node (run-node.ts), which propagates to its
 * children (propagate.ts), possibly running pure children inline; then write
 * the fan-in marks gathered meanwhile, and always append the task's events.
 * A crash anywhere leaves the message unacknowledged; its redelivery finds
 * every completed step done and repeats only idempotent propagation.
 */
export async function processNodeTask(task: NodeTask, deps: EngineDeps, deadline: () => number): Promise<void> {
  const invocation: Invocation = {
    ...deps,
    // The events the sender handed on come first in the log, from where it said the log continued.
    events: new EventBuffer(
      task.seq !== undefined ? [[task.request_id, task.seq]] : [],
      task.events && { requestId: task.request_id, since: task.events.since, data: task.events.data as Array<RequestEvent['data']> },
    ),
    settled: new Map(),
    deferredMarks: new Map(),
    starts: new Map(),
    deadline,
    runInline: (request, node) => runNode({ request_id: request.id, node_id: node.node_id }, invocation, { request, node }),
  };
  // A long invocation shows its request started while it still runs.
  const late = setTimeout(() => void flushStarts(invocation).catch(() => undefined), LATE_FLUSH_MS);
  try {
    await runNode(task, invocation);
    await flushDeferredMarks(invocation);
    await flushStarts(invocation);
  } finally {
    clearTimeout(late);
    await invocation.events.flush(deps.requests);
  }
}

/**
 * Moves the requests that started here and are still open to `in_progress`
 * (guarded: one that ended meanwhile stays ended). A crash before this leaves
 * the request `pending` with its nodes moving: the redelivered task repeats
 * the move, and an end sets `started_at` all the same (endRequest).
 */
async function flushStarts(invocation: Invocation): Promise<void> {
  for (const { request, at } of [...invocation.starts.values()]) {
    invocation.starts.delete(request.id);
    await markRequestStarted(invocation, request, at);
  }
}
