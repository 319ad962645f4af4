import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dynamoDbClient } from '../aws/clients.js';
import { serviceEnv } from '../config/env.js';

/** What a repository needs to reach the table; tests pass a mocked client. */
export interface TableRef {
  db: DynamoDBDocumentClient;
  tableName: string;
}

export const defaultTable = (): TableRef => ({ db: dynamoDbClient(), tableName: serviceEnv.tableName });

/** True when a TransactWriteItems call was cancelled by a failed condition. */
export function isConditionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'ConditionalCheckFailedException') return true;
  if (error.name !== 'TransactionCanceledException') return false;
  const reasons = (error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? [];
  return reasons.some((r) => r.Code === 'ConditionalCheckFailed');
}

export const nowIso = (): string => new Date().toISOString();
export const nowEpochSeconds = (): number => Math.floor(Date.now() / 1000);
