import type { QueueDefinition } from '#platform/queues.js';

/**
 * `webhook-events`: one notice `{account_id, event_id, event_type,
 * created_at}` per event of the account's event record, sent by the writer
 * after the transaction that recorded it (`webhookNotices().announce`,
 * lib/webhooks/index.ts), at least once. Its worker
 * (functions/workers/webhook-events.ts) creates one delivery per enabled
 * endpoint of that account subscribed to the type, each once whatever the
 * number of notices, and sends each to `webhook-deliveries`. A dead notice
 * fails the deliveries it created and never sent (lib/webhooks/dead-letters.ts).
 */
export const WEBHOOK_EVENTS_QUEUE = 'webhook-events';

/**
 * `webhook-deliveries`: one message per attempt of a delivery
 * `{delivery_id, endpoint_id, account_id, series, attempt, due_at}`
 * (lib/webhooks/deliver.ts). A message that arrives before `due_at` (a
 * retry further away than SQS's 15-minute delay) is sent again with the
 * rest of the wait. Its worker signs with the endpoint's derived secret.
 * A dead message fails its delivery, which nothing else would move on.
 */
export const WEBHOOK_DELIVERIES_QUEUE = 'webhook-deliveries';

export const WEBHOOKS_QUEUES: readonly QueueDefinition[] = [
  {
    name: WEBHOOK_EVENTS_QUEUE,
    worker: 'functions/workers/webhook-events.ts',
    deadLetterWorker: 'functions/workers/webhook-events-dead-letter.ts',
    workerTimeoutSeconds: 60,
    visibilityTimeoutSeconds: 90,
    maxReceiveCount: 5,
    batchSize: 10,
    maxBatchingWindowSeconds: 0,
    table: 'readwrite',
  },
  {
    name: WEBHOOK_DELIVERIES_QUEUE,
    worker: 'functions/workers/webhook-deliveries.ts',
    deadLetterWorker: 'functions/workers/webhook-deliveries-dead-letter.ts',
    // A batch's POSTs run side by side, each at most 15 s.
    workerTimeoutSeconds: 60,
    visibilityTimeoutSeconds: 90,
    maxReceiveCount: 5,
    batchSize: 10,
    maxBatchingWindowSeconds: 0,
    table: 'readwrite',
    serviceKey: true,
  },
];
