import { createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The service key: one random secret per deployment from which every webhook
 * secret is derived (HMAC-SHA256 of a purpose, a resource id and a version),
 * so the table holds no secret at all and a copy of it cannot sign or forge
 * an event; the key that signs pagination cursors is derived from it too
 * (`purposeKey`). In AWS it is a Secrets Manager secret the stack generates
 * (`SERVICE_KEY_SECRET_ARN`, read through Powertools Parameters, cached for
 * five minutes); under `npm start` a file (`SERVICE_KEY_FILE`, created on
 * first use with 32 random bytes).
 */
export interface ServiceKeySource {
  load(): Promise<Buffer>;
}

const CACHE_SECONDS = 300;

export const SERVICE_KEY_VARIABLES = { secretArn: 'SERVICE_KEY_SECRET_ARN', file: 'SERVICE_KEY_FILE' } as const;

/** The key named by the environment; a deployment without one cannot serve webhooks, said at first use. */
export function serviceKeyFromEnv(env: NodeJS.ProcessEnv = process.env): ServiceKeySource {
  const arn = env[SERVICE_KEY_VARIABLES.secretArn];
  const file = env[SERVICE_KEY_VARIABLES.file];
  if (arn) {
    return {
      load: async () => {
        // Loaded on first use: every list handler bundles this for its cursors, and most calls page no further.
        const { getSecret } = await import('@aws-lambda-powertools/parameters/secrets');
        return decodeKey(await getSecret<string>(arn, { maxAge: CACHE_SECONDS }));
      },
    };
  }
  if (file) return { load: async () => fileKey(file) };
  return {
    load: () =>
      Promise.reject(new Error(`The service key is not configured: set ${SERVICE_KEY_VARIABLES.secretArn} (AWS) or ${SERVICE_KEY_VARIABLES.file} (local).`)),
  };
}

function decodeKey(value: string | undefined): Buffer {
  if (!value || value.length < 32) throw new Error('The service key secret is empty or shorter than 32 characters.');
  return Buffer.from(value, 'utf8');
}

function fileKey(path: string): Buffer {
  try {
    return decodeKey(readFileSync(path, 'utf8').trim());
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(dirname(path), { recursive: true });
    // 'wx': two processes starting at once keep the first one's key.
    try {
      writeFileSync(path, `${randomBytes(32).toString('base64url')}\n`, { flag: 'wx', mode: 0o600 });
    } catch (raced) {
      if ((raced as NodeJS.ErrnoException).code !== 'EEXIST') throw raced;
    }
    return decodeKey(readFileSync(path, 'utf8').trim());
  }
}

/**
 * A Standard Webhooks secret (`whsec_` + base64 of 32 bytes) for one
 * resource: the same inputs always give the same secret, and a new
 * `version` (a rotation) gives an unrelated one.
 */
export function deriveWebhookSecret(key: Buffer, purpose: string, resourceId: string, version: number): string {
  const bytes = createHmac('sha256', key).update(`${purpose}\n${resourceId}\n${version}`).digest();
  return `whsec_${bytes.toString('base64')}`;
}

/**
 * A key for one use of the service key (`cursor`), so that what it signs
 * cannot be replayed as, or reveal, another use's. A purpose holds no
 * newline, so it is never the input of a webhook secret.
 */
export function purposeKey(key: Buffer, purpose: string): Buffer {
  if (purpose.includes('\n')) throw new Error('A purpose is one line.');
  return createHmac('sha256', key).update(purpose).digest();
}

let shared: ServiceKeySource | undefined;

/** The process's key source (the environment's), for default parameters. */
export function serviceKey(): ServiceKeySource {
  shared ??= serviceKeyFromEnv();
  return shared;
}
