import { mockClient } from 'aws-sdk-client-mock';
import { createDynamoDb } from '#platform/aws/clients.js';
import { readEnv } from '#platform/config/env.js';

/**
 * The client the functions run (lib/platform/aws/clients.ts, same settings and
 * marshalling), with its `send` mocked by aws-sdk-client-mock: a test stubs
 * commands and asserts on `mock.commandCalls(PutCommand)`.
 */
export function mockedDynamoDb() {
  const db = createDynamoDb(readEnv({ AWS_REGION: 'us-east-1' }), { accessKeyId: 'test', secretAccessKey: 'test' });
  return { db, mock: mockClient(db) };
}
