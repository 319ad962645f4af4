import { repoImport } from './bundling.js';

/**
 * The two baselines every load time is compared with, bundled like the
 * functions and measured in the same rounds.
 */

/** The smallest possible handler: context for every ratio. */
export const HELLO = 'hello-world';
export const HELLO_WORLD_SOURCE = "export const handler = async () => ({ statusCode: 200, body: 'ok' });\n";

/**
 * The floor every function stands on, and the budget's denominator: the
 * clients lib/platform/aws/clients.ts builds for them, a DynamoDB document
 * client and an SQS client, constructed at module scope with the same
 * settings, and nothing else. Bundled like the functions (the stack's
 * externals: none), so the SDK is in the bundle.
 */
export const SDK_FLOOR = 'sdk-floor';
export const SDK_FLOOR_SOURCE = (): string =>
  [
    `import { createDynamoDb, createSqs } from ${repoImport('lib/platform/aws/clients.ts')};`,
    '',
    'const dynamoDb = createDynamoDb();',
    'const sqs = createSqs();',
    '',
    "export const handler = async () => ({ statusCode: 200, body: typeof dynamoDb.send + ' ' + typeof sqs.send });",
    '',
  ].join('\n');
