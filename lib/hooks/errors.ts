import { DomainError } from '#platform/errors.js';
import { MAX_EVENT_BYTES, MAX_HOOKS_PER_ACCOUNT } from './model.js';

/** An event whose signature, or whose headers, do not verify with the hook's secret (401). */
export class InvalidSignatureError extends DomainError {
  constructor(reason: string) {
    super(
      'unauthenticated',
      'invalid_signature',
      `The event is not signed with this hook's secret (${reason}): webhook-id, webhook-timestamp (within 5 minutes of now) and webhook-signature are required.`,
    );
  }
}

/** An event body above MAX_EVENT_BYTES (413). */
export class EventTooLargeError extends DomainError {
  constructor(bytes: number) {
    super('too_large', 'payload_too_large', `The event body is ${bytes} bytes; a hook takes at most ${MAX_EVENT_BYTES} bytes (256 KiB).`);
  }
}

/** The same `webhook-id` is being started by a concurrent delivery that has not answered yet (409, retry). */
export class EventInFlightError extends DomainError {
  constructor() {
    super('conflict', 'webhook_in_flight', 'An event with this webhook-id is being started by another delivery; retry shortly.', { retryAfterSeconds: 1 });
  }
}

/** The account has MAX_HOOKS_PER_ACCOUNT hooks already (409); the problem document carries the `limit`. */
export class HookLimitReachedError extends DomainError {
  constructor() {
    super('conflict', 'hook_limit_reached', `An account has at most ${MAX_HOOKS_PER_ACCOUNT} hooks and this one has that many; delete one first.`, {
      extensions: { limit: MAX_HOOKS_PER_ACCOUNT },
    });
  }
}
