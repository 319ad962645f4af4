import type { GuardedFetchOptions, GuardedResponse, OutboundRequest } from '#net/guarded-fetch.js';
import { Failure } from '#platform/failure.js';
import type { ServiceKeySource } from '#platform/secrets/service-key.js';
import type { AccountEventReader } from './account-event-reader.js';
import type { DeliveriesRepo } from './deliveries-repository.js';
import type { DeliveryMessage, SendDelivery } from './delivery-messages.js';
import { signingSecrets } from './endpoint-secrets.js';
import type { EndpointsRepo } from './endpoints-repository.js';
import type { AttemptRecord, WebhookDelivery } from './model.js';
import { nextAttemptAt } from './schedule.js';
import { signedDelivery } from './signing.js';

/** A delivery's POST ends within this. */
export const DELIVERY_TIMEOUT_MS = 15_000;
/** An attempt this close to its due time is made now rather than chained. */
const EARLY_TOLERANCE_MS = 1_000;
/** At most this much of an answer's error text is kept in `last_error`. */
const ERROR_TEXT_MAX = 500;

export interface DeliveryDeps {
  endpoints: Pick<EndpointsRepo, 'get' | 'disableGone'>;
  deliveries: Pick<DeliveriesRepo, 'get' | 'recordAttempt' | 'fail'>;
  events: Pick<AccountEventReader, 'get'>;
  send: SendDelivery;
  serviceKey: ServiceKeySource;
  /** The guarded outbound client (lib/net/guarded-fetch.ts). */
  post(request: OutboundRequest, options: GuardedFetchOptions): Promise<GuardedResponse>;
  /** The retry schedule in seconds (lib/webhooks/schedule.ts). */
  schedule(): readonly number[];
  now(): Date;
}

/** What became of one message. */
export type DeliveryOutcome =
  /** Of a replaced series, an ended delivery, or an attempt already recorded. */
  | 'stale'
  /** Arrived before its due time: sent again with the rest of the wait. */
  | 'chained'
  /** Its attempt was recorded but the next one's message may not have been sent: sent (again). */
  | 'resent'
  | 'delivered'
  | 'retrying'
  | 'failed'
  /** The attempt was made, but another handler of the same attempt recorded first. */
  | 'raced';

const nextMessage = (message: DeliveryMessage, dueAt: string): DeliveryMessage => ({ ...message, attempt: message.attempt + 1, due_at: Date.parse(dueAt) });

/**
 * One message of the `webhook-deliveries` queue: the attempt it names,
 * made once. The delivery is read first, and the message is stale unless
 * the delivery is pending in the message's series with `attempt - 1`
 * attempts made; early, it is chained. Then the endpoint (of the
 * delivery's account) and the event are read, the body signed with the
 * endpoint's derived secret and POSTed through the address guard (15 s). A
 * 2xx is delivered; anything else (a refused address, a network error, a
 * timeout) is retried on the schedule, then failed; 410 fails it and
 * disables the endpoint. The attempt is recorded on condition of the
 * attempt number before the next message is sent, and the caller deletes
 * the message only after this returns: a worker that dies at any line
 * leaves the message to come back, and an attempt is recorded once (the
 * receiver may see it twice, with the same `webhook-id`).
 */
export async function processDelivery(deps: DeliveryDeps, message: DeliveryMessage): Promise<DeliveryOutcome> {
  const delivery = await deps.deliveries.get(message.endpoint_id, message.delivery_id);
  if (!delivery || delivery.account_id !== message.account_id || delivery.series !== message.series || delivery.status !== 'pending') return 'stale';
  if (delivery.attempts >= message.attempt) {
    // Recorded already; a handler that died between the record and the next message left it unsent.
    if (delivery.attempts !== message.attempt || delivery.next_attempt_at === null) return 'stale';
    await deps.send(nextMessage(message, delivery.next_attempt_at), deps.now());
    return 'resent';
  }
  if (delivery.attempts !== message.attempt - 1) return 'stale';
  const now = deps.now();
  if (message.due_at - now.getTime() > EARLY_TOLERANCE_MS) {
    await deps.send(message, now);
    return 'chained';
  }

  const endpoint = await deps.endpoints.get(delivery.account_id, delivery.endpoint_id);
  if (!endpoint) return ended(deps, delivery, 'The endpoint was deleted.');
  if (endpoint.disabled) return ended(deps, delivery, 'The endpoint is disabled.');
  const event = await deps.events.get(delivery.account_id, delivery.event_created_at, delivery.event_id);
  if (!event) return ended(deps, delivery, 'The event is past its retention.');

  const signed = signedDelivery(signingSecrets(await deps.serviceKey.load(), endpoint, now), event, now);
  let status: number | null = null;
  let error: string | null = null;
  try {
    const response = await deps.post(
      { url: endpoint.url, method: 'POST', headers: signed.headers, body: Buffer.from(signed.body) },
      { timeoutMs: DELIVERY_TIMEOUT_MS, readBody: () => false },
    );
    status = response.status;
    if (status < 200 || status > 299) error = `The endpoint answered ${status}${response.statusText ? ` ${response.statusText}` : ''}.`;
  } catch (thrown) {
    if (!(thrown instanceof Failure)) throw thrown;
    error = `${thrown.code}: ${thrown.message}`.slice(0, ERROR_TEXT_MAX);
  }

  const after = deps.now();
  let record: AttemptRecord;
  let outcome: DeliveryOutcome;
  if (status !== null && status >= 200 && status <= 299) {
    record = { status: 'delivered', last_status_code: status, last_error: null, next_attempt_at: null, delivered_at: after.toISOString() };
    outcome = 'delivered';
  } else if (status === 410) {
    await deps.endpoints.disableGone(delivery.account_id, delivery.endpoint_id, after.toISOString());
    record = {
      status: 'failed',
      last_status_code: 410,
      last_error: 'The endpoint answered 410 Gone: it is disabled until enabled again (PATCH disabled: false).',
      next_attempt_at: null,
    };
    outcome = 'failed';
  } else {
    const next = nextAttemptAt(deps.schedule(), message.attempt - delivery.series_start, after);
    record = { status: next ? 'pending' : 'failed', last_status_code: status, last_error: error, next_attempt_at: next ? next.toISOString() : null };
    outcome = next ? 'retrying' : 'failed';
  }
  const recorded = await deps.deliveries.recordAttempt(delivery, message.attempt, record);
  if (!recorded) return 'raced';
  if (recorded.status === 'pending' && recorded.next_attempt_at) await deps.send(nextMessage(message, recorded.next_attempt_at), after);
  return outcome;
}

async function ended(deps: DeliveryDeps, delivery: WebhookDelivery, reason: string): Promise<DeliveryOutcome> {
  return (await deps.deliveries.fail(delivery, reason)) ? 'failed' : 'raced';
}
