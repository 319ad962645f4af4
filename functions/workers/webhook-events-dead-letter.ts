import { queueWorker } from '#platform/queue-worker.js';
import { type DeadLetterDeps, failDeadLetteredNotice } from '#webhooks/dead-letters.js';
import type { WebhookNotice } from '#webhooks/index.js';
import { deadLetterDeps } from '#webhooks/worker-deps.js';

/** Fails the deliveries a notice that failed on every receive created and never sent (`internal_error`), so that none is left pending for ever. */
export const makeHandler = (deps: DeadLetterDeps = deadLetterDeps()) =>
  queueWorker((r) => failDeadLetteredNotice(deps, JSON.parse(r.body) as WebhookNotice, r.messageId));

export const handler = makeHandler();
