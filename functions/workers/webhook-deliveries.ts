import { queueWorker } from '#platform/queue-worker.js';
import { type DeliveryDeps, processDelivery } from '#webhooks/deliver.js';
import { DELIVERY_MESSAGE } from '#webhooks/queue-messages.js';
import { deliveryDeps } from '#webhooks/worker-deps.js';

/**
 * Worker of the webhook-deliveries queue (lib/webhooks/queues.ts): one
 * signed POST per message, its outcome recorded before the message is
 * deleted (a failed record leaves it to come back: partial batch failures).
 */
export const makeHandler = (deps: DeliveryDeps = deliveryDeps()) => queueWorker(DELIVERY_MESSAGE, (message) => processDelivery(deps, message));

export const handler = makeHandler();
