import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';

/** Puts items 25 at a time, retrying what DynamoDB leaves unprocessed with backoff. */
export async function batchPut(db: DynamoDBDocumentClient, tableName: string, items: Array<Record<string, unknown>>): Promise<void> {
  for (let i = 0; i < items.length; i += 25) {
    let pending: Array<Record<string, unknown>> = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 8) throw new Error('BatchWriteItem kept returning unprocessed items');
      const result = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending as never } }));
      pending = (result.UnprocessedItems?.[tableName] ?? []) as Array<Record<string, unknown>>;
      if (pending.length > 0) await new Promise((r) => setTimeout(r, 25 * 2 ** attempt));
    }
  }
}
