import { UnavailableError } from '#platform/errors.js';
import type { ServiceKeySource } from '#platform/secrets/service-key.js';
import type { DeliveriesRepo } from './deliveries-repository.js';
import type { SendDelivery } from './delivery-messages.js';
import { endpointSecret, FIRST_SECRET_VERSION } from './endpoint-secrets.js';
import type { EndpointsRepo } from './endpoints-repository.js';
import { deliveryNotFound, endpointNotFound, WebhookEndpointDisabledError } from './errors.js';
import { type EndpointPatch, newEndpointId, PREVIOUS_SECRET_OVERLAP_MS, type WebhookDelivery, type WebhookEndpoint, type WebhookEventType } from './model.js';

/** The endpoints' use cases; handlers pass the service's dependencies (webhooks-deps.ts), unit tests fakes. */
export interface EndpointsDeps {
  endpoints: EndpointsRepo;
  deliveries: DeliveriesRepo;
  send: SendDelivery;
  /** The address checks of an endpoint URL (endpoint-url.ts): throws the 422 naming `/url`. */
  checkUrl(url: string): Promise<void>;
  now(): Date;
}

/** Each type once, in the order first given. */
const distinct = (events: readonly WebhookEventType[]): WebhookEventType[] => [...new Set(events)];

/** POST /v1/webhook-endpoints: the endpoint, and its signing secret (shown this once; derived, never stored). */
export async function createEndpoint(
  deps: Pick<EndpointsDeps, 'endpoints' | 'checkUrl' | 'now'> & { serviceKey: ServiceKeySource },
  accountId: string,
  input: { url: string; events: WebhookEventType[]; description?: string | undefined },
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  await deps.checkUrl(input.url);
  const now = deps.now();
  const endpoint = await deps.endpoints.create({
    id: newEndpointId(now.getTime()),
    account_id: accountId,
    url: input.url,
    events: distinct(input.events),
    description: input.description ?? null,
    disabled: false,
    disabled_reason: null,
    secret_version: FIRST_SECRET_VERSION,
    previous_secret_version: null,
    previous_valid_until: null,
    secret_rotated_at: null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  });
  return { endpoint, secret: endpointSecret(await deps.serviceKey.load(), endpoint) };
}

export async function findEndpoint(endpoints: Pick<EndpointsRepo, 'get'>, accountId: string, endpointId: string): Promise<WebhookEndpoint> {
  const endpoint = await endpoints.get(accountId, endpointId);
  if (!endpoint) throw endpointNotFound();
  return endpoint;
}

/** PATCH /v1/webhook-endpoints/{id}: a new URL passes the address checks; `disabled: false` enables an endpoint a 410 disabled. */
export async function updateEndpoint(
  deps: Pick<EndpointsDeps, 'endpoints' | 'checkUrl' | 'now'>,
  accountId: string,
  endpointId: string,
  patch: EndpointPatch,
): Promise<WebhookEndpoint> {
  const current = await findEndpoint(deps.endpoints, accountId, endpointId);
  if (Object.values(patch).every((value) => value === undefined)) return current;
  if (patch.url !== undefined) await deps.checkUrl(patch.url);
  return deps.endpoints.update(accountId, endpointId, { ...patch, ...(patch.events ? { events: distinct(patch.events) } : {}) }, deps.now().toISOString());
}

/**
 * POST /v1/webhook-endpoints/{id}/rotate-secret: a new secret, shown once.
 * Deliveries carry a signature with the replaced one too for
 * PREVIOUS_SECRET_OVERLAP_MS (24 hours), so the receiver can switch secrets
 * without refusing any delivery.
 */
export async function rotateEndpointSecret(
  deps: Pick<EndpointsDeps, 'endpoints' | 'now'> & { serviceKey: ServiceKeySource },
  accountId: string,
  endpointId: string,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const now = deps.now();
  const endpoint = await deps.endpoints.rotate(accountId, endpointId, {
    now: now.toISOString(),
    previousValidUntil: new Date(now.getTime() + PREVIOUS_SECRET_OVERLAP_MS).toISOString(),
  });
  return { endpoint, secret: endpointSecret(await deps.serviceKey.load(), endpoint) };
}

/** A delivery of the account's endpoint; 404 alike for an unknown endpoint, another account's, or a delivery of another endpoint. */
export async function findDelivery(
  deps: Pick<EndpointsDeps, 'endpoints' | 'deliveries'>,
  accountId: string,
  endpointId: string,
  deliveryId: string,
): Promise<{ endpoint: WebhookEndpoint; delivery: WebhookDelivery }> {
  const endpoint = await findEndpoint(deps.endpoints, accountId, endpointId);
  const delivery = await deps.deliveries.get(endpoint.id, deliveryId);
  if (!delivery || delivery.account_id !== accountId) throw deliveryNotFound();
  return { endpoint, delivery };
}

/** Changes in a row that lose a race to the delivery's worker before the caller is told to retry. */
const RETRY_ATTEMPTS = 5;

/**
 * POST …/deliveries/{delivery_id}/retry: a new series of attempts starting
 * now, whatever the delivery's status (a pending one's waiting attempt is
 * replaced), with the same `webhook-id`; the schedule applies to it afresh.
 */
export async function retryDelivery(deps: EndpointsDeps, accountId: string, endpointId: string, deliveryId: string): Promise<WebhookDelivery> {
  let { endpoint, delivery } = await findDelivery(deps, accountId, endpointId, deliveryId);
  if (endpoint.disabled) throw new WebhookEndpointDisabledError();
  for (let attempt = 0; attempt < RETRY_ATTEMPTS; attempt++) {
    const now = deps.now();
    const restarted = await deps.deliveries.retry(delivery, now.toISOString());
    if (restarted) {
      const message = { delivery_id: restarted.id, endpoint_id: restarted.endpoint_id, account_id: accountId, series: restarted.series };
      await deps.send({ ...message, attempt: restarted.attempts + 1, due_at: now.getTime() }, now);
      return restarted;
    }
    delivery = (await findDelivery(deps, accountId, endpointId, deliveryId)).delivery;
  }
  throw new UnavailableError('The delivery is changing too fast to retry now; retry.');
}
