import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { serviceEnv, type ServiceEnv } from '../config/env.js';

export function createDynamoClient(env: ServiceEnv = serviceEnv): DynamoDBClient {
  return new DynamoDBClient({
    region: env.region,
    ...(env.dynamodbEndpoint
      ? {
          endpoint: env.dynamodbEndpoint,
          // DynamoDB Local accepts any credentials; real ones come from the Lambda role.
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }
      : {}),
  });
}

export function createDocumentClient(client: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
}

let client: DynamoDBClient | undefined;
let docClient: DynamoDBDocumentClient | undefined;

/**
 * Created once per execution environment, on first use (after the local
 * stack has set the endpoint), and reused across invocations.
 */
export const dynamo = (): DynamoDBClient => (client ??= createDynamoClient());
export const documentClient = (): DynamoDBDocumentClient => (docClient ??= createDocumentClient(dynamo()));
