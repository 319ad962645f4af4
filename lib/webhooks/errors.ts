import { DomainError, NotFoundError } from '#platform/errors.js';
import { MAX_ENDPOINTS_PER_ACCOUNT } from './model.js';

/** What every route on one endpoint (or one of its deliveries) answers when it is not the caller's to see. */
export const endpointNotFound = () => new NotFoundError('No such webhook endpoint.');
export const deliveryNotFound = () => new NotFoundError('No such delivery of this webhook endpoint.');

/** A disabled endpoint receives nothing, a manual retry included (409); PATCH `disabled: false` first. */
export class WebhookEndpointDisabledError extends DomainError {
  constructor() {
    super('conflict', 'webhook_endpoint_disabled', 'The webhook endpoint is disabled; enable it (PATCH disabled: false) before retrying a delivery.');
  }
}

/** The account has MAX_ENDPOINTS_PER_ACCOUNT endpoints already (409); the problem document carries the `limit`. */
export class EndpointLimitReachedError extends DomainError {
  constructor() {
    super(
      'conflict',
      'webhook_endpoint_limit_reached',
      `An account has at most ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints and this one has that many; delete one, or subscribe an existing one to more events.`,
      { extensions: { limit: MAX_ENDPOINTS_PER_ACCOUNT } },
    );
  }
}
