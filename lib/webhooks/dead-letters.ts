import { logger } from '#platform/observability/logger.js';
import type { DeliveriesRepo } from './deliveries-repository.js';
import type { DeliveryMessage } from './delivery-messages.js';
import type { EndpointsRepo } from './endpoints-repository.js';
import type { WebhookNotice } from './index.js';
import { deliveryIdOf, isWebhookEventType, MAX_ENDPOINTS_PER_ACCOUNT, type WebhookDelivery } from './model.js';

/**
 * `last_error` of a delivery a dead letter ended: the `code: message` form
 * of an outbound failure, with the code the other dead letters give their
 * work (runs, evaluations), so a client tells it from an endpoint's answer.
 */
export const DEAD_LETTER_ERROR =
  'internal_error: The service could not make this delivery’s next attempt after repeated tries; POST …/deliveries/{id}/retry starts a new series.';

export interface DeadLetterDeps {
  endpoints: Pick<EndpointsRepo, 'list'>;
  deliveries: Pick<DeliveriesRepo, 'get' | 'fail'>;
}

/** What a dead message changed: `failed` it ended the delivery; `stale` the delivery had moved on already; `raced` it moved on while being failed. */
export type DeadLetterOutcome = 'failed' | 'stale' | 'raced';

/**
 * A pending delivery has one live message, the next attempt's, and nothing
 * else ever moves it on: once that message is dead, it stays pending for
 * ever unless failed here. The message carried the delivery when its
 * attempt was not made (`attempts` one short), and also when it was
 * recorded (`attempts` equal): a message that died after its record may
 * never have sent the next one (deliver.ts, `resent`). The second case may
 * cut short a next message that did go out, which then finds the delivery
 * ended; a failed delivery can be retried, a stuck one cannot.
 */
const carriedBy = (delivery: WebhookDelivery, message: DeliveryMessage): boolean =>
  delivery.account_id === message.account_id &&
  delivery.status === 'pending' &&
  delivery.series === message.series &&
  (delivery.attempts === message.attempt - 1 || delivery.attempts === message.attempt);

/**
 * A `webhook-deliveries` message that failed on every receive: its delivery
 * ends `failed` with DEAD_LETTER_ERROR, on condition of the series,
 * attempts and status read, so a dead message handled twice, or a delivery
 * that was delivered, failed or retried meanwhile, changes nothing.
 */
export async function failDeadLetteredDelivery(deps: Pick<DeadLetterDeps, 'deliveries'>, message: DeliveryMessage): Promise<DeadLetterOutcome> {
  const delivery = await deps.deliveries.get(message.endpoint_id, message.delivery_id);
  const outcome: DeadLetterOutcome =
    !delivery || !carriedBy(delivery, message) ? 'stale' : (await deps.deliveries.fail(delivery, DEAD_LETTER_ERROR)) ? 'failed' : 'raced';
  const fields = {
    outcome,
    account_id: message.account_id,
    endpoint_id: message.endpoint_id,
    delivery_id: message.delivery_id,
    series: message.series,
    attempt: message.attempt,
  };
  if (outcome === 'failed') logger().error('webhook delivery failed: its message died on every receive', fields);
  else logger().info('dead webhook delivery message changed nothing', fields);
  return outcome;
}

/**
 * A `webhook-events` notice that failed on every receive. The dispatcher
 * may have created deliveries and died before sending their first
 * message: each is pending with no attempt, and only this notice would
 * have sent it (dispatch.ts, `dispatched_by`; SQS moves the message itself
 * to the dead-letter queue, so its id is the one stored). Those end
 * `failed` like a dead delivery message. Every endpoint of the account is
 * looked at, not only those subscribed now: one may have been changed since.
 * Subscribed endpoints with no delivery at all were never dispatched to;
 * there is no record to end, so the line logged counts them.
 */
export async function failDeadLetteredNotice(
  deps: DeadLetterDeps,
  notice: WebhookNotice,
  messageId: string,
): Promise<{ failed: number; raced: number; undispatched: number }> {
  const counts = { failed: 0, raced: 0, undispatched: 0 };
  const fields = { account_id: notice.account_id, event_id: notice.event_id, event_type: notice.event_type };
  if (!isWebhookEventType(notice.event_type)) {
    logger().warn('dead webhook notice of an unknown event type', fields);
    return counts;
  }
  const type = notice.event_type;
  const event = { id: notice.event_id, created_at: notice.created_at };
  for (const endpoint of await allEndpoints(deps, notice.account_id)) {
    const delivery = await deps.deliveries.get(endpoint.id, deliveryIdOf(endpoint.id, event));
    if (!delivery) {
      if (!endpoint.disabled && endpoint.events.includes(type)) counts.undispatched++;
      continue;
    }
    const unsent =
      delivery.status === 'pending' &&
      delivery.series === 1 &&
      delivery.attempts === 0 &&
      (delivery.dispatched_by === null || delivery.dispatched_by === messageId);
    if (!unsent) continue;
    if (await deps.deliveries.fail(delivery, DEAD_LETTER_ERROR)) counts.failed++;
    else counts.raced++;
  }
  const line = { ...fields, ...counts };
  if (counts.failed + counts.undispatched > 0) logger().error('webhook notice died on every receive: its deliveries were not all sent', line);
  else logger().info('dead webhook notice changed nothing', line);
  return counts;
}

async function allEndpoints(deps: Pick<DeadLetterDeps, 'endpoints'>, accountId: string) {
  const all = [];
  let after: string | undefined;
  do {
    const page = await deps.endpoints.list(accountId, { limit: MAX_ENDPOINTS_PER_ACCOUNT, after });
    all.push(...page.endpoints);
    after = page.nextAfter;
  } while (after);
  return all;
}
