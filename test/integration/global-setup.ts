import type { TestProject } from 'vitest/node';
import { startEmulators } from '#local/emulators.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** DynamoDB Local of this run (or DYNAMODB_ENDPOINT as given). */
    dynamodbEndpoint: string;
    /** The SQS emulator of this run (or SQS_ENDPOINT as given). */
    sqsEndpoint: string;
    /** The run's table; every integration file provisions it if missing. */
    tableName: string;
  }
}

/**
 * One DynamoDB Local and one SQS emulator (fauxqs) for every integration file
 * of the run, unless DYNAMODB_ENDPOINT / SQS_ENDPOINT already name running
 * ones. The endpoints reach the test processes through `provide`, and
 * test/integration/setup-env.ts puts them into process.env, where
 * test/helpers/stack.ts (and the CLI and `npm start` spawned by tests) read
 * them. Each file still starts its own gateway and uses fresh accounts.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const emulators = await startEmulators({ dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT || undefined, sqsEndpoint: process.env.SQS_ENDPOINT || undefined });
  project.provide('dynamodbEndpoint', emulators.dynamodbEndpoint);
  project.provide('sqsEndpoint', emulators.sqsEndpoint);
  project.provide('tableName', process.env.TABLE_NAME || `test-${Date.now()}`);
  return emulators.stop;
}
