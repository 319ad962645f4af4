import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#platform/table/keys.js';
import type { TableRef } from '#platform/table/table.js';

/** Whether any idempotency record of the table holds `text` (a secret that must not be stored): a Scan, for tests. */
export async function idempotencyRecordsHold(table: TableRef, text: string): Promise<boolean> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await table.db.send(
      new ScanCommand({
        TableName: table.tableName,
        FilterExpression: 'begins_with(pk, :p)',
        ExpressionAttributeValues: { ':p': keys.idempotencyPrefix },
        ExclusiveStartKey: startKey,
      }),
    );
    if ((page.Items ?? []).some((item) => JSON.stringify(item).includes(text))) return true;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return false;
}
