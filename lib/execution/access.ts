import { NotFoundError } from '#platform/errors.js';
import { isUuid } from '#platform/uuid.js';
import type { WorkflowRequest } from './model.js';

/** The caller's request, or the same 404 for a malformed, unknown or foreign id. */
export async function ownedRequest<R extends WorkflowRequest>(
  requests: { get(id: string): Promise<R | undefined> },
  accountId: string,
  id: string | undefined,
): Promise<R> {
  const request = id && isUuid(id) ? await requests.get(id) : undefined;
  if (!request || (request.account_id !== accountId && request.billing_user_id !== accountId)) {
    throw new NotFoundError('No workflow request with that id.');
  }
  return request;
}
