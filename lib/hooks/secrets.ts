import type { RunIdempotent } from '#platform/http/idempotency-key.js';
import { secretKeptOut } from '#platform/http/secret-kept-out.js';
import { deriveWebhookSecret, type ServiceKeySource, serviceKey } from '#platform/secrets/service-key.js';
import type { Hook } from './model.js';

/**
 * A hook's secrets, derived on demand from the service key
 * (lib/platform/secrets/service-key.ts): HMAC-SHA256 of this purpose, the
 * hook id and a secret version. The table holds only the versions, so a copy
 * of it can neither sign an event nor show a secret.
 */
export const HOOK_SECRET_PURPOSE = 'inbound-hook';

export interface HookSecrets {
  /** The secret of one version of a hook. */
  of(hookId: string, version: number): Promise<string>;
  /** The secrets an event may be signed with at `now`: the current one, and the previous one during its overlap. */
  verifying(hook: Hook, now: Date): Promise<string[]>;
}

export function hookSecrets(source: ServiceKeySource = serviceKey()): HookSecrets {
  const of = async (hookId: string, version: number) => deriveWebhookSecret(await source.load(), HOOK_SECRET_PURPOSE, hookId, version);
  return {
    of,
    async verifying(hook, now) {
      const previous =
        hook.previous_secret_version !== null && hook.previous_valid_until !== null && Date.parse(hook.previous_valid_until) > now.getTime()
          ? [hook.previous_secret_version]
          : [];
      return Promise.all([hook.secret_version, ...previous].map((version) => of(hook.id, version)));
    },
  };
}

/** The version of a hook's first secret: what its creation shows. */
export const FIRST_SECRET_VERSION = 1;

/** The idempotency of `POST /v1/hooks` without a secret in the table (lib/platform/http/secret-kept-out.ts): a replay is the first answer, so its secret is the first version's. */
export const hookSecretKeptOut = (run: RunIdempotent, secrets: Pick<HookSecrets, 'of'>): RunIdempotent =>
  secretKeptOut(run, (answer) => secrets.of(answer.id as string, FIRST_SECRET_VERSION));
