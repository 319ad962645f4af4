import { Webhook } from 'standardwebhooks';
import type { RunIdempotent } from '#platform/http/idempotency-key.js';
import { secretKeptOut } from '#platform/http/secret-kept-out.js';
import { deriveWebhookSecret, type ServiceKeySource } from '#platform/secrets/service-key.js';
import { ENDPOINT_SECRET_PURPOSE, type WebhookEndpoint } from './model.js';

/** The version of an endpoint's secret at its creation: what `POST /v1/webhook-endpoints` shows, and a replay of it. */
export const FIRST_SECRET_VERSION = 1;

/** The endpoint's signing secret (`whsec_…`), derived from the service key: never stored, the same on every derivation. */
export const endpointSecret = (key: Buffer, endpoint: Pick<WebhookEndpoint, 'id' | 'secret_version'>): string =>
  deriveWebhookSecret(key, ENDPOINT_SECRET_PURPOSE, endpoint.id, endpoint.secret_version);

/**
 * The body and headers of one delivery, signed per Standard Webhooks: the
 * body `{type, timestamp, data}` (`timestamp` the event's time, so every
 * attempt sends the same bytes), `webhook-id` the event's id,
 * `webhook-timestamp` the attempt's time in epoch seconds, and
 * `webhook-signature` over `<id>.<timestamp>.<body>`.
 */
export function signedDelivery(secret: string, event: { id: string; type: string; created_at: string; data: unknown }, now: Date) {
  const body = JSON.stringify({ type: event.type, timestamp: event.created_at, data: event.data });
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'workflow-service-webhooks/1',
      'webhook-id': event.id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(event.id, now, body),
    },
  };
}

/** The idempotency of `POST /v1/webhook-endpoints` without the secret in the table (lib/platform/http/secret-kept-out.ts): a replay derives the first version's again. */
export const endpointSecretKeptOut = (run: RunIdempotent, key: ServiceKeySource): RunIdempotent =>
  secretKeptOut(run, async (answer) => endpointSecret(await key.load(), { id: answer.id as string, secret_version: FIRST_SECRET_VERSION }));
