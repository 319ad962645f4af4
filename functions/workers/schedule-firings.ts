import { queueWorker } from '#platform/queue-worker.js';
import { type FireDeps, fireScheduled } from '#schedules/fire.js';
import { fireDeps } from '#schedules/fire-deps.js';
import { FIRING_MESSAGE } from '#schedules/queue-messages.js';

/**
 * Worker of the schedule-firings queue (lib/schedules/queues.ts): each
 * firing makes its schedule's request or run once per scheduled time; a
 * refusal by the account is recorded on the schedule, not retried.
 */
export const makeHandler = (deps: FireDeps = fireDeps()) => queueWorker(FIRING_MESSAGE, (firing) => fireScheduled(deps, firing));

export const handler = makeHandler();
