import { queueWorker } from '#platform/queue-worker.js';
import { type DeliveryDeps, processDelivery } from '#webhooks/deliver.js';
import type { DeliveryMessage } from '#webhooks/delivery-messages.js';
import { deliveryDeps } from '#webhooks/worker-deps.js';

/**
 * Worker of the webhook-deliveries queue (lib/webhooks/queues.ts): one
 * signed POST per message, its outcome recorded before the message is
 * deleted (a failed record leaves it to come back: partial batch failures).
 */
export const makeHandler = (deps: DeliveryDeps = deliveryDeps()) => queueWorker((r) => processDelivery(deps, JSON.parse(r.body) as DeliveryMessage));

export const handler = makeHandler();
