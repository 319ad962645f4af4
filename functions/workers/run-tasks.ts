import { randomUUID } from 'node:crypto';
import { queueWorker } from '#platform/queue-worker.js';
import type { LoopDeps } from '#runs/agent-loop.js';
import { loopDeps } from '#runs/loop-deps.js';
import { moveRun } from '#runs/move-run.js';
import { RUN_TASK_MESSAGE } from '#runs/queue-messages.js';

/**
 * Worker of the run-tasks queues (one per machine size): moves each run on
 * (lib/runs/move-run.ts). A record that throws comes back after the
 * visibility timeout; after five receives the dead-letter worker fails it.
 */
export const makeHandler = (deps: LoopDeps = loopDeps()) =>
  queueWorker(RUN_TASK_MESSAGE, (task, r, context) =>
    moveRun(deps, task, {
      owner: randomUUID(),
      remainingMs: () => context.getRemainingTimeInMillis(),
      redelivered: Number(r.attributes.ApproximateReceiveCount) > 1,
    }),
  );

export const handler = makeHandler();
