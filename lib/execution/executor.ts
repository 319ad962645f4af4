import { EventBuffer } from './emit.js';
import type { EngineDeps, Invocation } from './invocation.js';
import type { NodeTask } from './node-queue.js';
import { flushDeferredMarks } from './propagate.js';
import { runNode } from './run-node.js';

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
    events: new EventBuffer(task.seq !== undefined ? [[task.request_id, task.seq]] : []),
    settled: new Map(),
    deferredMarks: new Map(),
    deadline,
    runInline: (request, node) => runNode({ request_id: request.id, node_id: node.node_id }, invocation, { request, node }),
  };
  try {
    await runNode(task, invocation);
    await flushDeferredMarks(invocation);
  } finally {
    await invocation.events.flush(deps.requests);
  }
}
