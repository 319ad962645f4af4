import { ConflictError } from '#platform/errors.js';

/** 409 `request_not_redrivable`: only a `failed` or `stopped` request runs again (POST /v1/workflow-requests/{id}/redrive). */
export class RequestNotRedrivableError extends ConflictError {
  constructor(requestId: string, why: string) {
    super('request_not_redrivable', `The workflow request ${requestId} cannot be redriven: ${why}`);
  }
}
