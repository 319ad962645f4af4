import { DomainError } from '#platform/errors.js';

/** The account has as many machines as its limit allows (402); the problem document carries the `limit`. */
export class MachineLimitReachedError extends DomainError {
  constructor(readonly limit: number) {
    super(
      'payment_required',
      'machine_limit_reached',
      `The plan allows ${limit} machine${limit === 1 ? '' : 's'} and the account has that many; delete one or move to a larger plan.`,
      { extensions: { limit } },
    );
  }
}

/** A run is running, waiting or queued on the machine, so it is not deleted (409). */
export class MachineBusyError extends DomainError {
  constructor() {
    super('conflict', 'machine_busy', 'The machine has a running, waiting or queued run; cancel its runs first.');
  }
}
