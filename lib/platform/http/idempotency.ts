import { IdempotencyAlreadyInProgressError, IdempotencyConfig, IdempotencyValidationError, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import type { BasePersistenceLayer } from '@aws-lambda-powertools/idempotency/persistence';
import type { Context } from 'aws-lambda';
import { IDEMPOTENCY_TTL_SECONDS } from '../config/limits.js';
import { IdempotencyKeyConflictError, IdempotencyKeyInFlightError } from '../errors.js';
import { keys } from '../table/keys.js';
import type { IdempotentCall } from './idempotency-key.js';
import { SingleTableIdempotencyStore } from './idempotency-store.js';
import type { HttpResult } from './types.js';

let defaultStore: SingleTableIdempotencyStore | undefined;
const defaultIdempotencyStore = (): SingleTableIdempotencyStore => (defaultStore ??= new SingleTableIdempotencyStore());

/**
 * Runs `execute` at most once per (account, route, key) for 24 hours. A
 * replay answers the stored status and body with `Idempotency-Replayed: true`.
 * A failed execution leaves no record, so the client may retry it.
 */
export async function runIdempotent(
  call: IdempotentCall,
  context: Context,
  execute: () => Promise<HttpResult>,
  store: BasePersistenceLayer = defaultIdempotencyStore(),
): Promise<HttpResult> {
  const config = new IdempotencyConfig({
    eventKeyJmesPath: 'scope',
    payloadValidationJmesPath: 'body',
    throwOnNoIdempotencyKey: true,
    expiresAfterSeconds: IDEMPOTENCY_TTL_SECONDS,
    hashFunction: 'sha256',
    responseHook: (response) => {
      const stored = response as unknown as HttpResult;
      return { ...stored, headers: { ...stored.headers, 'Idempotency-Replayed': 'true' } };
    },
  });
  const idempotent = makeIdempotent(async (_payload: unknown, _context: Context) => execute(), {
    persistenceStore: store,
    config,
    keyPrefix: keys.idempotencyPrefix,
  });
  const payload = { scope: [call.accountId, call.route, call.key].join(' '), body: call.body ?? null };
  try {
    return (await idempotent(payload, context)) as HttpResult;
  } catch (error) {
    if (error instanceof IdempotencyValidationError) throw new IdempotencyKeyConflictError();
    if (error instanceof IdempotencyAlreadyInProgressError) throw new IdempotencyKeyInFlightError();
    throw error;
  }
}
