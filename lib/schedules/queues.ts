import type { QueueDefinition } from '#platform/queues.js';

/**
 * `schedule-firings`: one message `{schedule_id, scheduled_at}` per firing
 * of a schedule (lib/schedules/queue-messages.ts), sent by EventBridge
 * Scheduler in AWS (lib/schedules/eventbridge.ts) and by the local loop
 * under `npm start` (lib/schedules/due-firings.ts), at least once. Its
 * worker makes the firing's request or run once per `scheduled_at`
 * (lib/schedules/fire.ts). A firing that failed on every receive is
 * recorded on its schedule as `last_error` (`internal_error`).
 */
export const SCHEDULE_FIRINGS_QUEUE = 'schedule-firings';

export const SCHEDULES_QUEUES: readonly QueueDefinition[] = [
  {
    name: SCHEDULE_FIRINGS_QUEUE,
    worker: 'functions/workers/schedule-firings.ts',
    deadLetterWorker: 'functions/workers/schedule-firings-dead-letter.ts',
    workerTimeoutSeconds: 60,
    visibilityTimeoutSeconds: 90,
    maxReceiveCount: 5,
    batchSize: 10,
    maxBatchingWindowSeconds: 0,
    table: 'readwrite',
    // A firing whose target is gone disables its schedule, and its EventBridge schedule with it.
    schedules: true,
  },
];
