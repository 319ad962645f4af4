import type { RunIdempotent } from '#platform/http/idempotency-key.js';
import { secretKeptOut } from '#platform/http/secret-kept-out.js';
import { deriveWebhookSecret, type ServiceKeySource } from '#platform/secrets/service-key.js';
import { ENDPOINT_SECRET_PURPOSE, type WebhookEndpoint } from './model.js';

// Apart from signing.ts, so the endpoint handlers that only show a secret do not load the signing library (cold start).

/** The version of an endpoint's secret at its creation: what `POST /v1/webhook-endpoints` shows, and a replay of it. */
export const FIRST_SECRET_VERSION = 1;

/** The endpoint's signing secret (`whsec_…`), derived from the service key: never stored, the same on every derivation. */
export const endpointSecret = (key: Buffer, endpoint: Pick<WebhookEndpoint, 'id' | 'secret_version'>): string =>
  deriveWebhookSecret(key, ENDPOINT_SECRET_PURPOSE, endpoint.id, endpoint.secret_version);

/** The secrets a delivery at `now` is signed with: the current one, and the one a rotation replaced while its overlap lasts. */
export function signingSecrets(
  key: Buffer,
  endpoint: Pick<WebhookEndpoint, 'id' | 'secret_version' | 'previous_secret_version' | 'previous_valid_until'>,
  now: Date,
): string[] {
  const previous =
    endpoint.previous_secret_version !== null && endpoint.previous_valid_until !== null && Date.parse(endpoint.previous_valid_until) > now.getTime()
      ? [endpoint.previous_secret_version]
      : [];
  return [endpoint.secret_version, ...previous].map((version) => endpointSecret(key, { id: endpoint.id, secret_version: version }));
}

/** The idempotency of `POST /v1/webhook-endpoints` without the secret in the table (lib/platform/http/secret-kept-out.ts): a replay derives the first version's again. */
export const endpointSecretKeptOut = (run: RunIdempotent, key: ServiceKeySource): RunIdempotent =>
  secretKeptOut(run, async (answer) => endpointSecret(await key.load(), { id: answer.id as string, secret_version: FIRST_SECRET_VERSION }));
