import * as z from 'zod/v4-mini';
import { MACHINE_SIZES } from '#machines/index.js';
import type { MessageOf, QueueMessage } from '#platform/queue-worker.js';
import type { RunStatus } from './model.js';

/**
 * The messages of the runs' queues (lib/runs/queues.ts), as their workers
 * validate them. Kept apart from the senders (wake.ts and run-ended.ts
 * import only their types), so that a handler that sends one loads no zod
 * at init.
 */

/** A run task: move this run on; validated by the run-task worker and its dead-letter worker. */
export const RunTaskSchema = z.looseObject({
  run_id: z.string(),
  machine_size: z.enum(MACHINE_SIZES),
  /** How many times a worker found no such run yet (its creation may not have committed when the message came). */
  absent: z.optional(z.number()),
});

export type RunTask = MessageOf<typeof RunTaskSchema>;

export const RUN_TASK_MESSAGE: QueueMessage<typeof RunTaskSchema> = { kind: 'run task', schema: RunTaskSchema };

/** That a run has ended (run-ended.ts); validated by the run-ended worker (functions/workers/run-ended.ts). */
export const RunEndedSchema = z.looseObject({
  run_id: z.string(),
  account_id: z.string(),
  status: z.enum(['completed', 'failed', 'cancelled'] satisfies RunStatus[]),
});

export type RunEnded = MessageOf<typeof RunEndedSchema>;

export const RUN_ENDED_MESSAGE: QueueMessage<typeof RunEndedSchema> = { kind: 'run ended', schema: RunEndedSchema };
