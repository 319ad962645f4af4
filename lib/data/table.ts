import type { DocumentDb } from './document-db.js';
import { serviceEnv } from '../config/env.js';
import { documentClient } from './client.js';

/** What a repository needs to reach the table; tests pass a mocked client. */
export interface TableRef {
  db: DocumentDb;
  tableName: string;
}

export const defaultTable = (): TableRef => ({ db: documentClient(), tableName: serviceEnv.tableName });

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
