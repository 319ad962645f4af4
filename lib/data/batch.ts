import { BatchWriteCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

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

/**
 * One page of an account's items in the gsi1 "newest first" partition,
 * filtered, reading on until the page is full plus one (which only proves
 * there is more). `next` is the position of the page's last item.
 */
export async function newestFirstPage(
  db: DynamoDBDocumentClient,
  tableName: string,
  partition: string,
  filter: { expression: string; names: Record<string, string>; values: Record<string, unknown> } | undefined,
  options: { limit: number; after?: { gsi1sk: string; pk: string; sk: string } },
) {
  const found: Array<Record<string, unknown>> = [];
  let startKey: Record<string, unknown> | undefined = options.after ? { gsi1pk: partition, ...options.after } : undefined;
  do {
    const page = await db.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :g',
        FilterExpression: filter?.expression,
        ExpressionAttributeNames: filter?.names,
        ExpressionAttributeValues: { ':g': partition, ...filter?.values },
        ScanIndexForward: false,
        ExclusiveStartKey: startKey,
        Limit: options.limit + 1,
      }),
    );
    found.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey && found.length <= options.limit);
  const items = found.slice(0, options.limit);
  const last = items.at(-1);
  return {
    items,
    next: found.length > options.limit && last ? { gsi1sk: last.gsi1sk as string, pk: last.pk as string, sk: last.sk as string } : undefined,
  };
}
