import {
  ConditionalCheckFailedException,
  DynamoDBServiceException,
  ProvisionedThroughputExceededException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { createDynamoDb } from '#platform/aws/clients.js';
import { readEnv } from '#platform/config/env.js';

/**
 * The client the functions run (lib/platform/aws/clients.ts, same settings and
 * marshalling), with its `send` mocked by aws-sdk-client-mock: a test stubs
 * commands and asserts on `mock.commandCalls(PutCommand)`. `table` is that
 * client on a table named `t`, as a repository is given it.
 */
export function mockedDynamoDb() {
  const db = createDynamoDb(readEnv({ AWS_REGION: 'us-east-1' }), { accessKeyId: 'test', secretAccessKey: 'test' });
  return { db, mock: mockClient(db), table: { db, tableName: 't' } };
}

/** What DynamoDB answers a write whose condition failed (with the item, when the request asked for it back). */
export const conditionFailed = (item?: ConditionalCheckFailedException['Item']) =>
  new ConditionalCheckFailedException({ message: 'x', $metadata: {}, Item: item });

/** A throttled call: an error a repository lets through unchanged. */
export const throttled = () => new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: {} });

/** A cancelled transaction, one cancellation reason code per item (`'None'`, `'ConditionalCheckFailed'`, ...). */
export const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: codes.map((Code) => ({ Code })) });

/** What DynamoDB answers a write (a transaction too) holding a value nested past its 32 levels, word for word. */
export const nestedTooDeep = () =>
  new DynamoDBServiceException({
    name: 'ValidationException',
    $fault: 'client',
    $metadata: {},
    message: 'Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit',
  });
