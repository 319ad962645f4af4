import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { IdempotencyAlreadyInProgressError, IdempotencyValidationError } from '@aws-lambda-powertools/idempotency';
import type { Context } from 'aws-lambda';
import { IDEMPOTENCY_TTL_SECONDS } from '../config/limits.js';
import { serviceEnv } from '../config/env.js';
import { dynamo } from '../data/client.js';
import { keys } from '../data/keys.js';
import { TABLE_DEFINITION } from '../data/table-definition.js';
import { IdempotencyKeyConflictError, IdempotencyKeyInFlightError } from '../errors.js';
import type { IdempotentCall } from './idempotency-key.js';
import type { HttpResult } from './types.js';

/**
 * Powertools' DynamoDB persistence, adapted to the single table: the record
 * lives at pk = `IDEMPOTENCY#<hash>`, sk = `IDEMPOTENCY` (its own partition,
 * so no hot key), and its expiry is the table's TTL attribute.
 */
export class SingleTableIdempotencyStore extends DynamoDBPersistenceLayer {
  constructor(client: DynamoDBClient = dynamo(), tableName = serviceEnv.tableName) {
    super({ tableName, awsSdkV3Client: client, keyAttr: TABLE_DEFINITION.partitionKey, expiryAttr: TABLE_DEFINITION.ttlAttribute });
  }

  protected override getKey(idempotencyKey: string): Record<string, AttributeValue> {
    const key = keys.idempotency(idempotencyKey);
    return { pk: { S: key.pk }, sk: { S: key.sk } };
  }
}

let defaultStore: SingleTableIdempotencyStore | undefined;

/**
 * Runs `execute` at most once per (account, route, key) for 24 hours. A
 * replay answers the stored status and body with `Idempotency-Replayed: true`.
 * A failed execution leaves no record, so the client may retry it.
 */
export async function runIdempotent(
  call: IdempotentCall,
  context: Context,
  execute: () => Promise<HttpResult>,
  store: DynamoDBPersistenceLayer = (defaultStore ??= new SingleTableIdempotencyStore()),
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
