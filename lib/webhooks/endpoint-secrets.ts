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

/** The idempotency of `POST /v1/webhook-endpoints` without the secret in the table (lib/platform/http/secret-kept-out.ts): a replay derives the first version's again. */
export const endpointSecretKeptOut = (run: RunIdempotent, key: ServiceKeySource): RunIdempotent =>
  secretKeptOut(run, async (answer) => endpointSecret(await key.load(), { id: answer.id as string, secret_version: FIRST_SECRET_VERSION }));
