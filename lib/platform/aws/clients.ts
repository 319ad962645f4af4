import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type ServiceEnv, serviceEnv } from '../config/env.js';

export type Credentials = NonNullable<DynamoDBClientConfig['credentials']>;

/**
 * For an emulator endpoint: the environment's credentials when there are
 * some (LocalStack picks its account from the access key), else fixed ones,
 * which DynamoDB Local (run with -sharedDb) and fauxqs accept. In AWS the
 * SDK's own chain finds the function role's credentials.
 */
const emulatorCredentials = (): Credentials => ({
  accessKeyId: process.env.AWS_ACCESS_KEY_ID || 'local',
  secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY || 'local',
  sessionToken: process.env.AWS_SESSION_TOKEN || undefined,
});

/**
 * Settings every client shares. Standard retry mode (throttling, 5xx and
 * network errors, with the SDK's jittered backoff and retry quota). The
 * timeouts make a stalled connection fail and be retried instead of waiting
 * until the Lambda deadline: a connection that is not up in 3 s, or a
 * request without an answer after 10 s (a DynamoDB or SQS call answers in
 * milliseconds; long polls are the local poller's, on its own client).
 */
export const CLIENT_TIMEOUTS = { connectionTimeout: 3_000, requestTimeout: 10_000 };

export function clientSettings(
  endpoint: string | undefined,
  region: string,
  credentials?: Credentials,
  timeouts: typeof CLIENT_TIMEOUTS = CLIENT_TIMEOUTS,
): DynamoDBClientConfig {
  return {
    region,
    endpoint,
    credentials: credentials ?? (endpoint ? emulatorCredentials() : undefined),
    retryMode: 'standard',
    maxAttempts: 4,
    // Without throwOnRequestTimeout the handler only logs a warning when requestTimeout passes.
    requestHandler: { ...timeouts, throwOnRequestTimeout: true },
  };
}

/**
 * The repositories' client. Optional fields left undefined are dropped
 * rather than refused; a class instance (a Date, say) is an error, since
 * storing it as a map would lose what it was.
 */
export function createDynamoDb(env: ServiceEnv = serviceEnv, credentials?: Credentials): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(new DynamoDBClient(clientSettings(env.dynamodbEndpoint, env.region, credentials)), {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
}

export function createSqs(env: ServiceEnv = serviceEnv): SQSClient {
  return new SQSClient(clientSettings(env.sqsEndpoint, env.region));
}

let dynamoDb: DynamoDBDocumentClient | undefined;
let sqs: SQSClient | undefined;

/**
 * One client each per execution environment, reused across invocations.
 * Built on first use rather than at import: the local stack imports shared
 * modules before it knows its emulators' endpoints. In Lambda the module
 * code (the larger cost) is still loaded at init; only the construction
 * waits for the first call.
 */
export const dynamoDbClient = (): DynamoDBDocumentClient => (dynamoDb ??= createDynamoDb());
export const sqsClient = (): SQSClient => (sqs ??= createSqs());
