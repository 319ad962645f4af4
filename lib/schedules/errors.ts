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
