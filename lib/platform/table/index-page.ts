import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';

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
  let startKey: Record<string, unknown> | undefined = options.after ? { ...options.after, gsi1pk: partition } : undefined;
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
