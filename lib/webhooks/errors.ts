import { DomainError, NotFoundError } from '#platform/errors.js';

/** What every route on one endpoint (or one of its deliveries) answers when it is not the caller's to see. */
export const endpointNotFound = () => new NotFoundError('No such webhook endpoint.');
export const deliveryNotFound = () => new NotFoundError('No such delivery of this webhook endpoint.');

/** A disabled endpoint receives nothing, a manual retry included (409); PATCH `disabled: false` first. */
export class WebhookEndpointDisabledError extends DomainError {
  constructor() {
    super('conflict', 'webhook_endpoint_disabled', 'The webhook endpoint is disabled; enable it (PATCH disabled: false) before retrying a delivery.');
  }
}
