import { Webhook } from 'standardwebhooks';

/**
 * The body and headers of one delivery, signed per Standard Webhooks: the
 * body `{type, timestamp, data}` (`timestamp` the event's time, so every
 * attempt sends the same bytes), `webhook-id` the event's id,
 * `webhook-timestamp` the attempt's time in epoch seconds, and
 * `webhook-signature` over `<id>.<timestamp>.<body>`: one `v1,…` per
 * secret, space-separated (after a rotation, the new and the replaced one),
 * so a receiver holding either verifies it.
 */
export function signedDelivery(secrets: readonly string[], event: { id: string; type: string; created_at: string; data: unknown }, now: Date) {
  const body = JSON.stringify({ type: event.type, timestamp: event.created_at, data: event.data });
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'workflow-service-webhooks/1',
      'webhook-id': event.id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(event.id, now, body)).join(' '),
    },
  };
}
