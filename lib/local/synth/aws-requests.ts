import type { IamRequest } from './iam-policy.js';

/**
 * The IAM requests AWS would authorize for one raw DynamoDB, SQS or Secrets
 * Manager API call, as the local IAM proxy needs them: action, resource ARN
 * and the condition keys the grants we deploy use.
 */

export type AwsService = 'dynamodb' | 'sqs' | 'secretsmanager';

export interface RawRequest {
  method: string;
  /** Path and query string of the request line. */
  url?: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  body: Buffer;
}

export interface RequestScope {
  region: string;
  accountId: string;
  /** The table's partition key attribute (TABLE_DEFINITION.partitionKey). */
  partitionKey: string;
  /** Each index's partition key attribute: `dynamodb:LeadingKeys` of a Query on an index is its value. */
  indexPartitionKeys?: Readonly<Record<string, string>>;
  /** The local secrets, to find the ARN of a SecretId given as a name. */
  secrets?: ReadonlyArray<{ arn: string; name: string }>;
}

type Json = Record<string, unknown>;
const record = (value: unknown): Json => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});
const array = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export function headerValue(headers: RawRequest['headers'], name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** The operation named by `X-Amz-Target` (`DynamoDB_20120810.GetItem` → `GetItem`), if the request has one. */
export const targetOperation = (raw: RawRequest): string | undefined => headerValue(raw.headers, 'x-amz-target')?.split('.').pop();

function jsonBody(raw: RawRequest): Json {
  try {
    return record(JSON.parse(raw.body.toString('utf8') || '{}'));
  } catch {
    return {};
  }
}

export function iamRequests(service: AwsService, raw: RawRequest, scope: RequestScope): IamRequest[] {
  if (service === 'dynamodb') return dynamoDbRequests(targetOperation(raw) ?? '', jsonBody(raw), scope);
  if (service === 'sqs') return [sqsRequest(raw, scope)];
  const secretId = text(jsonBody(raw).SecretId);
  return [{ action: `secretsmanager:${targetOperation(raw) ?? ''}`, resource: secretId ? secretArn(secretId, scope) : '*' }];
}

function secretArn(secretId: string, scope: RequestScope): string {
  if (secretId.startsWith('arn:')) return secretId;
  return scope.secrets?.find((secret) => secret.name === secretId)?.arn ?? `arn:aws:secretsmanager:${scope.region}:${scope.accountId}:secret:${secretId}`;
}

const TRANSACT_WRITE_ACTIONS: Record<string, string> = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem' };

function dynamoDbRequests(operation: string, body: Json, scope: RequestScope): IamRequest[] {
  const request = (action: string, table: string | undefined, leadingKeys: (string | undefined)[] = []): IamRequest => {
    const values = [...new Set(leadingKeys.filter((value): value is string => value !== undefined))];
    const resource = !table ? '*' : table.startsWith('arn:') ? table : `arn:aws:dynamodb:${scope.region}:${scope.accountId}:table/${table}`;
    return { action: `dynamodb:${action}`, resource, ...(values.length > 0 && { context: { 'dynamodb:LeadingKeys': values } }) };
  };
  const partitionOf = (item: unknown) => keyValue(record(item)[scope.partitionKey]);
  const writtenPartition = (write: unknown) => partitionOf(record(record(write).PutRequest).Item ?? record(record(write).DeleteRequest).Key);
  const table = text(body.TableName);
  switch (operation) {
    case 'GetItem':
    case 'DeleteItem':
    case 'UpdateItem':
    case 'PutItem':
      return [request(operation, table, [partitionOf(body.Key ?? body.Item)])];
    case 'BatchGetItem':
      return Object.entries(record(body.RequestItems)).map(([name, spec]) => request(operation, name, array(record(spec).Keys).map(partitionOf)));
    case 'BatchWriteItem':
      return Object.entries(record(body.RequestItems)).map(([name, writes]) => request(operation, name, array(writes).map(writtenPartition)));
    case 'TransactWriteItems':
      return array(body.TransactItems).map((item) => {
        const [kind = '', spec] = Object.entries(record(item))[0] ?? [];
        const fields = record(spec);
        return request(TRANSACT_WRITE_ACTIONS[kind] ?? kind, text(fields.TableName), [partitionOf(fields.Item ?? fields.Key)]);
      });
    case 'TransactGetItems':
      return array(body.TransactItems).map((item) => {
        const get = record(record(item).Get);
        return request('GetItem', text(get.TableName), [partitionOf(get.Key)]);
      });
    case 'Query':
    case 'Scan': {
      const index = text(body.IndexName);
      const resource = index && table ? `${request(operation, table).resource}/index/${index}` : table;
      const attribute = index ? scope.indexPartitionKeys?.[index] : scope.partitionKey;
      return [request(operation, resource, operation === 'Query' && attribute ? [queryPartitionValue(body, attribute)] : [])];
    }
    default:
      return [request(operation, table ?? text(body.ResourceArn))];
  }
}

/** An attribute value usable as a key (S, N or B) as the string IAM compares. */
const keyValue = (attributeValue: unknown): string | undefined => {
  const value = record(attributeValue);
  return text(value.S) ?? text(value.N) ?? text(value.B);
};

/** The value a Query's key condition requires of the partition key: `pk = :v` (or `#name`, either side), or legacy KeyConditions EQ. */
function queryPartitionValue(body: Json, attribute: string): string | undefined {
  const names = record(body.ExpressionAttributeNames);
  const values = record(body.ExpressionAttributeValues);
  for (const [, left = '', right = ''] of (text(body.KeyConditionExpression) ?? '').matchAll(/([#:\w.]+)\s*=\s*([#:\w.]+)/g)) {
    for (const [name, placeholder] of [
      [left, right],
      [right, left],
    ] as const) {
      const resolved = name.startsWith('#') ? text(names[name]) : name;
      if (resolved === attribute && placeholder.startsWith(':')) return keyValue(values[placeholder]);
    }
  }
  const legacy = record(record(body.KeyConditions)[attribute]);
  return legacy.ComparisonOperator === 'EQ' ? keyValue(array(legacy.AttributeValueList)[0]) : undefined;
}

const SQS_BATCH_ACTIONS: Record<string, string> = {
  SendMessageBatch: 'SendMessage',
  DeleteMessageBatch: 'DeleteMessage',
  ChangeMessageVisibilityBatch: 'ChangeMessageVisibility',
};

function sqsRequest(raw: RawRequest, scope: RequestScope): IamRequest {
  const operation = targetOperation(raw);
  let field: (name: string) => string | undefined;
  if (operation !== undefined) {
    const body = jsonBody(raw);
    field = (name) => text(body[name]);
  } else {
    // The query protocol: parameters in the form body, or in the query string of a GET.
    const form = new URLSearchParams(raw.body.toString('utf8'));
    const query = new URL(raw.url ?? '/', 'http://local').searchParams;
    field = (name) => form.get(name) ?? query.get(name) ?? undefined;
  }
  const action = operation ?? field('Action') ?? '';
  const queueArn = (name: string, account = scope.accountId) => `arn:aws:sqs:${scope.region}:${account}:${name}`;
  const queueUrl = field('QueueUrl');
  const queueName = field('QueueName');
  const resource = queueUrl
    ? queueArn(new URL(queueUrl, 'http://local').pathname.split('/').filter(Boolean).pop() ?? '')
    : queueName
      ? queueArn(queueName, field('QueueOwnerAWSAccountId'))
      : (field('SourceArn') ?? '*');
  return { action: `sqs:${SQS_BATCH_ACTIONS[action] ?? action}`, resource };
}
