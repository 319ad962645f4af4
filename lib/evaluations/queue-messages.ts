import * as z from 'zod/v4-mini';
import type { MessageOf, QueueMessage } from '#platform/queue-worker.js';

/**
 * The message of the evaluation-runs queue (lib/evaluations/queues.ts), as
 * its worker and its dead-letter worker validate it. Kept apart from the
 * sender (tasks.ts imports only its type), so that a handler that sends
 * one loads no zod at init.
 */

/** A task of the evaluation-runs queue: move this evaluation on. */
export const EvaluationTaskSchema = z.looseObject({
  evaluation_id: z.string(),
  account_id: z.string(),
  /** How many times a worker found no such evaluation yet (the task is sent before the creation's transaction). */
  absent: z.optional(z.number()),
});

export type EvaluationTask = MessageOf<typeof EvaluationTaskSchema>;

export const EVALUATION_TASK_MESSAGE: QueueMessage<typeof EvaluationTaskSchema> = { kind: 'evaluation task', schema: EvaluationTaskSchema };
