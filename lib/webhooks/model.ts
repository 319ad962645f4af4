import { createHash, randomBytes } from 'node:crypto';

/**
 * Outbound webhooks (decisions.md, Webhooks): the event types, the endpoint
 * and delivery as stored and as the API shows them. No I/O.
 */

/** Every event type an endpoint may subscribe to. */
export const WEBHOOK_EVENT_TYPES = [
  'workflow_request.completed',
  'workflow_request.failed',
  'workflow_request.stopped',
  'run.completed',
  'run.failed',
  'run.cancelled',
  'interaction.created',
  'evaluation.completed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const isWebhookEventType = (type: string): type is WebhookEventType => (WEBHOOK_EVENT_TYPES as readonly string[]).includes(type);

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The purpose an endpoint's signing secret is derived under (lib/platform/secrets/service-key.ts). */
export const ENDPOINT_SECRET_PURPOSE = 'webhook-endpoint';

/** How long a delivery's record is kept (its retries end within a day and a half). */
export const DELIVERY_RETENTION_SECONDS = 30 * 24 * 60 * 60;

export const MAX_URL_LENGTH = 2048;
/** Endpoints an account may have at once: every event is delivered to each subscribed one, so their number is bounded. */
export const MAX_ENDPOINTS_PER_ACCOUNT = 20;
/** After a rotation, deliveries carry a signature with the replaced secret too for this long, so a receiver can switch without refusing any. */
export const PREVIOUS_SECRET_OVERLAP_MS = 24 * 3600 * 1000;
export const MAX_DESCRIPTION_LENGTH = 500;

/** `whe_`, 9 base-36 digits of creation time, 16 base64url characters (as lib/platform/ids.ts makes ids). */
export const ENDPOINT_ID = /^whe_[0-9a-z]{9}[A-Za-z0-9_-]{16}$/;
/** `whd_`, 9 base-36 digits of the event's time, 16 base64url characters of a hash of (endpoint id, event id). */
export const DELIVERY_ID = /^whd_[0-9a-z]{9}[A-Za-z0-9_-]{16}$/;

const time36 = (ms: number) => ms.toString(36).padStart(9, '0');

export const newEndpointId = (now = Date.now()): string => `whe_${time36(now)}${randomBytes(12).toString('base64url')}`;

/** The one delivery of an event to an endpoint: the same id however often the event is dispatched. */
export function deliveryIdOf(endpointId: string, event: { id: string; created_at: string }): string {
  const hash = createHash('sha256').update(`${endpointId}\n${event.id}`).digest().subarray(0, 12).toString('base64url');
  return `whd_${time36(Date.parse(event.created_at))}${hash}`;
}

/** An event's first delivery to one endpoint, pending from `now`, recorded as created by the notice message `dispatchedBy`. */
export function firstDelivery(
  endpointId: string,
  accountId: string,
  event: { id: string; type: WebhookEventType; created_at: string },
  now: Date,
  dispatchedBy: string | null,
): WebhookDelivery {
  return {
    id: deliveryIdOf(endpointId, event),
    endpoint_id: endpointId,
    account_id: accountId,
    event_id: event.id,
    event_type: event.type,
    event_created_at: event.created_at,
    status: 'pending',
    attempts: 0,
    series: 1,
    series_start: 0,
    last_status_code: null,
    last_error: null,
    next_attempt_at: now.toISOString(),
    created_at: now.toISOString(),
    delivered_at: null,
    dispatched_by: dispatchedBy,
  };
}

export interface WebhookEndpoint {
  id: string;
  account_id: string;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  disabled: boolean;
  /** `gone`: a delivery was answered 410; `user`: PATCH disabled; null while enabled. */
  disabled_reason: 'gone' | 'user' | null;
  /** The secret is derived from the service key, the endpoint id and this version; never stored. */
  secret_version: number;
  /** The version the last rotation replaced: deliveries are signed with it too until `previous_valid_until`. */
  previous_secret_version: number | null;
  previous_valid_until: string | null;
  secret_rotated_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDelivery {
  id: string;
  endpoint_id: string;
  account_id: string;
  /** The account event delivered: its id is the `webhook-id`, the same on every attempt. */
  event_id: string;
  event_type: WebhookEventType;
  event_created_at: string;
  status: DeliveryStatus;
  /** Attempts made, over every series. */
  attempts: number;
  /** The current series of attempts: 1, and one more for each manual retry; a message of another series is stale. */
  series: number;
  /** `attempts` when the current series began: the retry schedule counts from here. */
  series_start: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
  /**
   * The queue message (its SQS id, the same on every receive) of the notice
   * that created the delivery; null on deliveries written before it was kept.
   */
  dispatched_by: string | null;
}

/** What PATCH changes of an endpoint (the fields given; the others stay). */
export interface EndpointPatch {
  url?: string;
  events?: WebhookEventType[];
  description?: string | null;
  disabled?: boolean;
}

/** What one attempt (or the end of a series without one) leaves on the delivery. */
export interface AttemptRecord {
  status: DeliveryStatus;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  delivered_at?: string;
}

export const endpointView = (endpoint: WebhookEndpoint) => ({
  id: endpoint.id,
  url: endpoint.url,
  events: endpoint.events,
  description: endpoint.description,
  disabled: endpoint.disabled,
  disabled_reason: endpoint.disabled_reason,
  secret_rotated_at: endpoint.secret_rotated_at,
  previous_secret_expires_at: endpoint.previous_valid_until,
  created_at: endpoint.created_at,
  updated_at: endpoint.updated_at,
});

export const deliveryView = (delivery: WebhookDelivery) => ({
  id: delivery.id,
  endpoint_id: delivery.endpoint_id,
  event_id: delivery.event_id,
  event_type: delivery.event_type,
  status: delivery.status,
  attempts: delivery.attempts,
  last_status_code: delivery.last_status_code,
  last_error: delivery.last_error,
  next_attempt_at: delivery.next_attempt_at,
  created_at: delivery.created_at,
  delivered_at: delivery.delivered_at,
});
