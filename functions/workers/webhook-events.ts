import { queueWorker } from '#platform/queue-worker.js';
import { type DispatchDeps, dispatchEvent } from '#webhooks/dispatch.js';
import type { WebhookNotice } from '#webhooks/index.js';
import { dispatchDeps } from '#webhooks/worker-deps.js';

/**
 * Worker of the webhook-events queue (lib/webhooks/queues.ts): an event of
 * the account's record becomes one delivery per subscribed endpoint of that
 * account, each created once however often its notice comes.
 */
export const makeHandler = (deps: DispatchDeps = dispatchDeps()) => queueWorker((r) => dispatchEvent(deps, JSON.parse(r.body) as WebhookNotice, r.messageId));

export const handler = makeHandler();
