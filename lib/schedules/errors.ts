import { DomainError } from '#platform/errors.js';
import { MAX_SCHEDULES_PER_ACCOUNT } from './model.js';

/** The account has MAX_SCHEDULES_PER_ACCOUNT schedules already (409); the problem document carries the `limit`. */
export class ScheduleLimitReachedError extends DomainError {
  constructor() {
    super('conflict', 'schedule_limit_reached', `An account has at most ${MAX_SCHEDULES_PER_ACCOUNT} schedules and this one has that many; delete one first.`, {
      extensions: { limit: MAX_SCHEDULES_PER_ACCOUNT },
    });
  }
}

/** Another write changed the schedule between its read and this write, too often in a row (503, retry). */
export class ScheduleBusyError extends DomainError {
  constructor() {
    super('unavailable', 'unavailable', 'The schedule is changing too fast to apply this now; retry.', { retryAfterSeconds: 1 });
  }
}
