import type {
  BatchGetCommandInput,
  BatchGetCommandOutput,
  BatchWriteCommandInput,
  BatchWriteCommandOutput,
  DeleteCommandInput,
  DeleteCommandOutput,
  GetCommandInput,
  GetCommandOutput,
  PutCommandInput,
  PutCommandOutput,
  QueryCommandInput,
  QueryCommandOutput,
  TransactWriteCommandInput,
  TransactWriteCommandOutput,
  UpdateCommandInput,
  UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall, type marshallOptions } from '@aws-sdk/util-dynamodb';
import type { JsonCall } from '../aws/json-client.js';
import { AwsServiceError } from '../aws/service-error.js';

type Out<T> = Omit<T, '$metadata'>;
type Item = Record<string, unknown>;
type Wire = Record<string, unknown>;

/**
 * The document-style DynamoDB operations the repositories use, with the
 * inputs and outputs of `@aws-sdk/lib-dynamodb` (plain JavaScript values,
 * marshalled here). Repositories depend on this interface; unit tests pass a
 * fake of it.
 */
export interface DocumentDb {
  get(input: GetCommandInput): Promise<Out<GetCommandOutput>>;
  put(input: PutCommandInput): Promise<Out<PutCommandOutput>>;
  update(input: UpdateCommandInput): Promise<Out<UpdateCommandOutput>>;
  delete(input: DeleteCommandInput): Promise<Out<DeleteCommandOutput>>;
  query(input: QueryCommandInput): Promise<Out<QueryCommandOutput>>;
  transactWrite(input: TransactWriteCommandInput): Promise<Out<TransactWriteCommandOutput>>;
  batchGet(input: BatchGetCommandInput): Promise<Out<BatchGetCommandOutput>>;
  batchWrite(input: BatchWriteCommandInput): Promise<Out<BatchWriteCommandOutput>>;
  /** Table status for the health check; the rest of the answer as DynamoDB sends it. */
  describeTable(tableName: string): Promise<{ Table?: { TableStatus?: string } }>;
}

// Optional fields left undefined are dropped rather than refused; a class
// instance (a Date, say) is an error, since storing it as a map loses what it was.
const MARSHALL: marshallOptions = { removeUndefinedValues: true, convertClassInstanceToMap: false };

const toWire = (value: Item | undefined): Wire | undefined => (value === undefined ? undefined : (marshall(value, MARSHALL) as Wire));
const fromWire = (value: unknown): Item | undefined => (value === undefined ? undefined : unmarshall(value as never));
const fromWireList = (values: unknown): Item[] | undefined => (values as unknown[] | undefined)?.map((v) => fromWire(v)!);
const mapValues = <A, B>(record: Record<string, A> | undefined, f: (value: A) => B): Record<string, B> | undefined =>
  record && Object.fromEntries(Object.entries(record).map(([k, v]) => [k, f(v)]));

/** Marshals the attribute-value fields of one request part (a Get, Put, Update, Delete or ConditionCheck). */
function part<T extends object>(input: T): Wire {
  const { Key, Item: item, ExpressionAttributeValues, ExclusiveStartKey, ...rest } = input as Record<string, unknown>;
  return {
    ...rest,
    ...(Key !== undefined ? { Key: toWire(Key as Item) } : {}),
    ...(item !== undefined ? { Item: toWire(item as Item) } : {}),
    ...(ExpressionAttributeValues !== undefined ? { ExpressionAttributeValues: toWire(ExpressionAttributeValues as Item) } : {}),
    ...(ExclusiveStartKey !== undefined ? { ExclusiveStartKey: toWire(ExclusiveStartKey as Item) } : {}),
  };
}

function single<T>(raw: Wire): T {
  const { Item: item, Attributes, ...rest } = raw;
  return { ...rest, ...(item !== undefined ? { Item: fromWire(item) } : {}), ...(Attributes !== undefined ? { Attributes: fromWire(Attributes) } : {}) } as T;
}

/** A failed condition can carry the item as it was (`ReturnValuesOnConditionCheckFailure`): plain values, like the rest. */
async function conditionalWrite<T>(call: JsonCall, operation: string, input: object): Promise<T> {
  const wire = part(input);
  return call<Wire>(operation, wire).then(single<T>, (error: unknown) => {
    if (error instanceof AwsServiceError && error.Item !== undefined) error.Item = fromWire(error.Item);
    throw error;
  });
}

export function documentDb(call: JsonCall): DocumentDb {
  return {
    get: async (input) => single(await call('GetItem', part(input))),
    put: (input) => conditionalWrite(call, 'PutItem', input),
    update: (input) => conditionalWrite(call, 'UpdateItem', input),
    delete: (input) => conditionalWrite(call, 'DeleteItem', input),
    query: async (input) => {
      const { Items, LastEvaluatedKey, ...rest } = await call('Query', part(input));
      return { ...rest, Items: fromWireList(Items), LastEvaluatedKey: fromWire(LastEvaluatedKey) };
    },
    transactWrite: async (input) => {
      const TransactItems = input.TransactItems?.map((entry) => mapValues(entry as Record<string, object>, part));
      return call('TransactWriteItems', { ...input, TransactItems });
    },
    batchGet: async (input) => {
      const RequestItems = mapValues(input.RequestItems, (request) => ({ ...request, Keys: request.Keys?.map((k) => toWire(k)) }));
      const { Responses, UnprocessedKeys, ...rest } = await call<Wire>('BatchGetItem', { ...input, RequestItems });
      return {
        ...rest,
        Responses: mapValues(Responses as Record<string, unknown[]>, (items) => fromWireList(items)!),
        UnprocessedKeys: mapValues(UnprocessedKeys as Record<string, { Keys?: unknown[] }>, (request) => ({ ...request, Keys: fromWireList(request.Keys) })),
      } as Out<BatchGetCommandOutput>;
    },
    batchWrite: async (input) => {
      const toRequests = (requests: unknown[], convert: (item: Item | undefined) => unknown) =>
        requests.map((request) => {
          const { PutRequest, DeleteRequest } = request as { PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } };
          return PutRequest ? { PutRequest: { Item: convert(PutRequest.Item) } } : { DeleteRequest: { Key: convert(DeleteRequest?.Key) } };
        });
      const RequestItems = mapValues(input.RequestItems as Record<string, unknown[]>, (requests) => toRequests(requests, toWire));
      const { UnprocessedItems, ...rest } = await call<Wire>('BatchWriteItem', { ...input, RequestItems });
      return { ...rest, UnprocessedItems: mapValues(UnprocessedItems as Record<string, unknown[]>, (requests) => toRequests(requests, fromWire)) } as Out<BatchWriteCommandOutput>;
    },
    describeTable: (tableName) => call('DescribeTable', { TableName: tableName }),
  };
}
