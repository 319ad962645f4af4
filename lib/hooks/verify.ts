import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { InvalidSignatureError } from './errors.js';

export type EventHeaders = Record<string, string | undefined>;

const HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/**
 * Checks an event's Standard Webhooks signature (the `standardwebhooks`
 * library: `webhook-timestamp` within 5 minutes of now, any of the
 * space-separated `v1,` signatures of `webhook-signature`) against each of
 * `secrets` in turn, over the body exactly as received. Answers the
 * `webhook-id`; anything else is an InvalidSignatureError (401), a stale or
 * future timestamp included.
 */
export function verifyEvent(secrets: readonly string[], rawBody: string, headers: EventHeaders): string {
  const sent: Record<string, string> = {};
  for (const name of HEADERS) {
    const value = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
    if (value === undefined || value === '') throw new InvalidSignatureError(`missing ${name}`);
    sent[name] = value;
  }
  let reason = 'no secret';
  for (const secret of secrets) {
    try {
      new Webhook(secret).verify(rawBody, sent, { jsonParse: false });
      return sent['webhook-id']!;
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      reason = error.message.toLowerCase();
    }
  }
  throw new InvalidSignatureError(reason);
}
