import { queueWorker } from '#platform/queue-worker.js';
import { type DispatchDeps, dispatchEvent } from '#webhooks/dispatch.js';
import { WEBHOOK_NOTICE_MESSAGE } from '#webhooks/queue-messages.js';
import { dispatchDeps } from '#webhooks/worker-deps.js';

/**
 * Worker of the webhook-events queue (lib/webhooks/queues.ts): an event of
 * the account's record becomes one delivery per subscribed endpoint of that
 * account, each created once however often its notice comes.
 */
export const makeHandler = (deps: DispatchDeps = dispatchDeps()) =>
  queueWorker(WEBHOOK_NOTICE_MESSAGE, (notice, r) => dispatchEvent(deps, notice, r.messageId));

export const handler = makeHandler();
