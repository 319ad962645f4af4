import { queueWorker } from '#platform/queue-worker.js';
import { recordDeadFiring } from '#schedules/dead-firings.js';
import { FIRING_MESSAGE } from '#schedules/queue-messages.js';
import { type SchedulesRepo, schedulesRepo } from '#schedules/schedules-repository.js';

/** Records a firing that failed on every receive as its schedule's `last_error` (`internal_error`), unless it was made after all. */
export const makeHandler = (deps: { schedules: SchedulesRepo } = { schedules: schedulesRepo() }) =>
  queueWorker(FIRING_MESSAGE, (firing) => recordDeadFiring(deps, firing));

export const handler = makeHandler();
