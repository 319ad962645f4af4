import { logger } from '#platform/observability/logger.js';
import type { AccountEventReader } from './account-event-reader.js';
import type { DeliveriesRepo } from './deliveries-repository.js';
import type { SendDelivery } from './delivery-messages.js';
import type { EndpointsRepo } from './endpoints-repository.js';
import type { WebhookNotice } from './index.js';
import { firstDelivery, isWebhookEventType } from './model.js';

export interface DispatchDeps {
  events: Pick<AccountEventReader, 'get'>;
  endpoints: Pick<EndpointsRepo, 'subscribed'>;
  deliveries: Pick<DeliveriesRepo, 'createOnce'>;
  send: SendDelivery;
  now(): Date;
}

/**
 * A notice of the `webhook-events` queue: the event is read from the
 * account's event record (what was committed, whatever the notice says),
 * then every enabled endpoint of that same account subscribed to its type
 * gets a delivery, created once (its key derives from the endpoint and the
 * event), and its first attempt's message. `messageId` is the notice's
 * queue message, the same on every receive; the delivery keeps it.
 *
 * A notice handled again creates nothing. A delivery found with no attempt
 * made gets its first message again only from the message that created it
 * (or when the delivery does not say which did): that message is deleted
 * only after its send, so a dispatcher that died in between is covered by
 * its own message coming back. Another notice of the same event (the same
 * end asked again) sends nothing, or a live dispatcher's delivery would be
 * POSTed twice. The number of deliveries whose first message was sent.
 */
export async function dispatchEvent(deps: DispatchDeps, notice: WebhookNotice, messageId: string): Promise<number> {
  if (!isWebhookEventType(notice.event_type)) return 0;
  const event = await deps.events.get(notice.account_id, notice.created_at, notice.event_id);
  if (!event) {
    logger().warn('webhook notice of an event not in the record (past its retention?)', { account_id: notice.account_id, event_id: notice.event_id });
    return 0;
  }
  if (!isWebhookEventType(event.type)) return 0;
  const type = event.type;
  const endpoints = await deps.endpoints.subscribed(notice.account_id, type);
  const now = deps.now();
  const sent = await Promise.all(
    endpoints.map(async (endpoint) => {
      const delivery = firstDelivery(endpoint.id, notice.account_id, { id: event.id, type, created_at: event.created_at }, now, messageId);
      const { created, delivery: stored } = await deps.deliveries.createOnce(delivery);
      const mine = stored.dispatched_by === null || stored.dispatched_by === messageId;
      const unsent = created || (mine && stored.status === 'pending' && stored.series === 1 && stored.attempts === 0);
      if (!unsent) return 0;
      const due = Date.parse(stored.next_attempt_at ?? stored.created_at);
      await deps.send({ delivery_id: stored.id, endpoint_id: stored.endpoint_id, account_id: stored.account_id, series: 1, attempt: 1, due_at: due }, now);
      return 1;
    }),
  );
  return sent.reduce<number>((a, b) => a + b, 0);
}
