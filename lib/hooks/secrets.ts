import type { Context } from 'aws-lambda';
import type { IdempotentCall } from '#platform/http/idempotency-key.js';
import type { HttpResult } from '#platform/http/types.js';
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

type RunIdempotent = (call: IdempotentCall, context: Context, execute: () => Promise<HttpResult>) => Promise<HttpResult>;

/** The version of a hook's first secret: what its creation shows. */
export const FIRST_SECRET_VERSION = 1;

/**
 * The idempotency of `POST /v1/hooks` without a secret in the table: the
 * answer is stored with its `secret` taken out, and every answer, first or
 * replayed, gets it back, derived again (the first version's: a replay is
 * the first answer). Without an Idempotency-Key the handler's own answer,
 * secret included, is sent as it is.
 */
export function secretKeptOut(run: RunIdempotent, secrets: Pick<HookSecrets, 'of'>): RunIdempotent {
  return async (call, context, execute) => {
    const answer = await run(call, context, async () => {
      const fresh = await execute();
      const { secret: _, ...rest } = JSON.parse(fresh.body) as Record<string, unknown>;
      return { ...fresh, body: JSON.stringify(rest) };
    });
    if (answer.statusCode !== 201) return answer;
    const { id, name, url, ...rest } = JSON.parse(answer.body) as Record<string, unknown>;
    const secret = await secrets.of(id as string, FIRST_SECRET_VERSION);
    return { ...answer, body: JSON.stringify({ id, name, url, secret, ...rest }) };
  };
}
