import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { DocumentDb } from '../../lib/data/document-db.js';

/**
 * The repositories' DocumentDb over an SDK document client, for unit tests
 * that mock the client with aws-sdk-client-mock: DocumentDb takes and
 * returns exactly lib-dynamodb's command inputs and outputs, so a test can
 * stub `GetCommand` and assert on `commandCalls(PutCommand)` as before.
 */
export function sdkDocumentDb(client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }))): { db: DocumentDb; client: DynamoDBDocumentClient } {
  const db: DocumentDb = {
    get: (input) => client.send(new GetCommand(input)),
    put: (input) => client.send(new PutCommand(input)),
    update: (input) => client.send(new UpdateCommand(input)),
    delete: (input) => client.send(new DeleteCommand(input)),
    query: (input) => client.send(new QueryCommand(input)),
    transactWrite: (input) => client.send(new TransactWriteCommand(input)),
    batchGet: (input) => client.send(new BatchGetCommand(input)),
    batchWrite: (input) => client.send(new BatchWriteCommand(input)),
    describeTable: (tableName) => client.send(new DescribeTableCommand({ TableName: tableName })),
  };
  return { db, client };
}
