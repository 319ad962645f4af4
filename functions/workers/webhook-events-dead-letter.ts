import { queueWorker } from '#platform/queue-worker.js';
import { type DeadLetterDeps, failDeadLetteredNotice } from '#webhooks/dead-letters.js';
import { WEBHOOK_NOTICE_MESSAGE } from '#webhooks/queue-messages.js';
import { deadLetterDeps } from '#webhooks/worker-deps.js';

/** Fails the deliveries a notice that failed on every receive created and never sent (`internal_error`), so that none is left pending for ever. */
export const makeHandler = (deps: DeadLetterDeps = deadLetterDeps()) =>
  queueWorker(WEBHOOK_NOTICE_MESSAGE, (notice, r) => failDeadLetteredNotice(deps, notice, r.messageId));

export const handler = makeHandler();
