import * as z from 'zod/v4-mini';
import type { MessageOf, QueueMessage } from '#platform/queue-worker.js';

/**
 * The message of the `schedule-firings` queue (lib/schedules/queues.ts), as
 * its workers validate it. EventBridge Scheduler sends exactly this JSON,
 * `scheduled_at` being its `<aws.scheduler.scheduled-time>` (second
 * precision, `2026-11-27T10:00:00Z`); the worker reads any ISO 8601 time
 * as one instant (canonicalInstant), so both senders' forms are one firing.
 */
export const FiringSchema = z.looseObject({
  schedule_id: z.string(),
  scheduled_at: z.iso.datetime({ offset: true }),
});

export type FiringMessage = MessageOf<typeof FiringSchema>;

export const FIRING_MESSAGE: QueueMessage<typeof FiringSchema> = { kind: 'schedule firing', schema: FiringSchema };
