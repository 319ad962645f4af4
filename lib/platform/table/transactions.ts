import { type DynamoDBDocumentClient, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { cancellationReasons } from './table.js';

/** One item of a TransactWriteItems: what features build and send together. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

const pause = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.min(200, 10 * 2 ** attempt) * (0.5 + Math.random())));

/** True when a transaction was cancelled only because another transaction held one of its items (nothing refused it). */
export function isConflictOnly(error: unknown): boolean {
  const reasons = cancellationReasons(error) ?? [];
  return reasons.some((r) => r.Code === 'TransactionConflict') && reasons.every((r) => r.Code === 'TransactionConflict' || r.Code === 'None');
}

/**
 * Sends a TransactWriteItems, and again, with backoff, while it is
 * cancelled only by conflicts with concurrent transactions on the same
 * items (a counter that many transactions raise, such as an account's daily
 * activity): the SDK does not retry those. Any refusal is thrown as it is.
 */
export async function transactWrite(db: DynamoDBDocumentClient, input: TransactWriteCommandInput, attempts = 8): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await db.send(new TransactWriteCommand(input));
      return;
    } catch (error) {
      if (attempt >= attempts || !isConflictOnly(error)) throw error;
      await pause(attempt);
    }
  }
}
