import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { queryPage } from './queries.js';

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
  const page = await queryPage(
    db,
    {
      TableName: tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :g',
      FilterExpression: filter?.expression,
      ExpressionAttributeNames: filter?.names,
      ExpressionAttributeValues: { ':g': partition, ...filter?.values },
      ScanIndexForward: false,
    },
    { limit: options.limit, startKey: options.after ? { ...options.after, gsi1pk: partition } : undefined },
  );
  const last = page.items.at(-1);
  return {
    items: page.items,
    next: page.more && last ? { gsi1sk: last.gsi1sk as string, pk: last.pk as string, sk: last.sk as string } : undefined,
  };
}
