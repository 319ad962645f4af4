import { queueWorker } from '#platform/queue-worker.js';
import { type DeadLetterDeps, failDeadLetteredDelivery } from '#webhooks/dead-letters.js';
import { DELIVERY_MESSAGE } from '#webhooks/queue-messages.js';
import { deadLetterDeps } from '#webhooks/worker-deps.js';

/** Fails a delivery whose attempt's message failed on every receive (`internal_error`), so that it is never left pending for ever. */
export const makeHandler = (deps: DeadLetterDeps = deadLetterDeps()) => queueWorker(DELIVERY_MESSAGE, (message) => failDeadLetteredDelivery(deps, message));

export const handler = makeHandler();
