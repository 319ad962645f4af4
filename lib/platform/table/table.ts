import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dynamoDbClient } from '../aws/clients.js';
import { serviceEnv } from '../config/env.js';

/** What a repository needs to reach the table; tests pass a mocked client. */
export interface TableRef {
  db: DynamoDBDocumentClient;
  tableName: string;
}

export const defaultTable = (): TableRef => ({ db: dynamoDbClient(), tableName: serviceEnv.tableName });

/** Why each item of a cancelled TransactWriteItems failed, in request order; undefined for any other error. */
export function cancellationReasons(error: unknown): Array<{ Code?: string }> | undefined {
  if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') return undefined;
  return (error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? [];
}

/** True when a write, or a TransactWriteItems call, was refused by a failed condition. */
export function isConditionFailure(error: unknown): boolean {
  if (error instanceof Error && error.name === 'ConditionalCheckFailedException') return true;
  return cancellationReasons(error)?.some((r) => r.Code === 'ConditionalCheckFailed') ?? false;
}

export const nowIso = (): string => new Date().toISOString();

/**
 * True when DynamoDB refused a write for what its items hold (a value
 * nested deeper than 32 levels, an item over 400 KB, …) rather than for a
 * condition or a race: sent again as it is, it is refused again. A
 * transaction is refused so with a ValidationException, or cancelled with
 * a `ValidationError` reason.
 */
export function isRefusedForContent(error: unknown): boolean {
  if (error instanceof Error && error.name === 'ValidationException') return true;
  return cancellationReasons(error)?.some((r) => r.Code === 'ValidationError') ?? false;
}
