import { type DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';

type QueryInput = Omit<QueryCommandInput, 'ExclusiveStartKey' | 'Limit'>;

/**
 * Every item a Query matches, following `LastEvaluatedKey` page after page
 * (a page holds at most 1 MB); `onCapacity` receives each page's consumed
 * capacity when the input asks for it.
 */
export async function queryAll(db: DynamoDBDocumentClient, input: QueryInput, onCapacity?: (units: number) => void): Promise<Array<Record<string, unknown>>> {
  const items: Array<Record<string, unknown>> = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(new QueryCommand({ ...input, ExclusiveStartKey: startKey }));
    onCapacity?.(page.ConsumedCapacity?.CapacityUnits ?? 0);
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/**
 * One page of at most `limit` items of a Query from `startKey`, reading on
 * until it has one item more than the page (which only proves there is
 * more) or the Query ends. Each read asks for `limit + 1` items, fewer when
 * nothing is filtered out (every item read counts), or `readLimit`; after
 * `maxQueries` reads it stops short and `lastKey` says where it stopped.
 */
export async function queryPage(
  db: DynamoDBDocumentClient,
  input: QueryInput,
  options: { limit: number; startKey?: Record<string, unknown>; readLimit?: number; maxQueries?: number },
): Promise<{ items: Array<Record<string, unknown>>; more: boolean; lastKey?: Record<string, unknown> }> {
  const found: Array<Record<string, unknown>> = [];
  let startKey = options.startKey;
  let queries = 0;
  do {
    const limit = options.readLimit ?? options.limit + 1 - (input.FilterExpression ? 0 : found.length);
    const page = await db.send(new QueryCommand({ ...input, ExclusiveStartKey: startKey, Limit: limit }));
    queries++;
    found.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey && found.length <= options.limit && queries < (options.maxQueries ?? Number.POSITIVE_INFINITY));
  return { items: found.slice(0, options.limit), more: found.length > options.limit, ...(startKey ? { lastKey: startKey } : {}) };
}

/**
 * One page of the items under a key prefix of one partition, newest first
 * (their sort keys end in ids that sort by creation time), strongly
 * consistent: what a cursor list of an account's items (machines, webhook
 * endpoints, deliveries) reads. `after` is the id the previous page ended at;
 * `nextAfter` the one this page ends at when more follow.
 */
export async function newestUnderPrefix<T extends { id: string }>(
  table: { db: DynamoDBDocumentClient; tableName: string },
  prefix: { pk: string; skPrefix: string },
  keyOf: (id: string) => Record<string, string>,
  options: { limit: number; after?: string },
  map: (item: Record<string, unknown>) => T,
): Promise<{ items: T[]; nextAfter?: string }> {
  const page = await queryPage(
    table.db,
    {
      TableName: table.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': prefix.pk, ':prefix': prefix.skPrefix },
      ScanIndexForward: false,
      ConsistentRead: true,
    },
    { limit: options.limit, startKey: options.after ? keyOf(options.after) : undefined },
  );
  const items = page.items.map(map);
  return { items, nextAfter: page.more ? items.at(-1)?.id : undefined };
}
