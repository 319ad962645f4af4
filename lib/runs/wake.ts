import type { MachineSize } from '#machines/index.js';
import { sendToQueue } from '#platform/aws/send-to-queue.js';
import type { RunTask } from './queue-messages.js';
import { runTasksQueue } from './queues.js';

/** A run task: move this run on (lib/runs/queues.ts); its schema, for the workers, is in queue-messages.ts. */
export type { RunTask } from './queue-messages.js';

/** Asks a worker of the run's machine size to move the run on, after `delaySeconds` (at most SQS's 900). */
export type WakeRun = (run: { id: string; machine_size: MachineSize }, options?: { delaySeconds?: number; absent?: number }) => Promise<void>;

export const wakeRun: WakeRun = (run, { delaySeconds = 0, absent } = {}) =>
  sendToQueue(
    runTasksQueue(run.machine_size),
    { run_id: run.id, machine_size: run.machine_size, ...(absent ? { absent } : {}) } satisfies RunTask,
    delaySeconds,
  );
