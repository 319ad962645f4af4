import type { TestProject } from 'vitest/node';
import { type RunningService, startDynamoDbLocal, startSqsEmulator } from '#local/emulators.js';

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
  const services: RunningService[] = [];
  const stop = async () => {
    for (const service of services.reverse()) await service.stop().catch(() => undefined);
  };
  const started = (service: RunningService) => {
    services.push(service);
    return service.endpoint;
  };
  try {
    const [dynamodbEndpoint, sqsEndpoint] = await Promise.all([
      process.env.DYNAMODB_ENDPOINT || startDynamoDbLocal().then(started),
      process.env.SQS_ENDPOINT || startSqsEmulator().then(started),
    ]);
    project.provide('dynamodbEndpoint', dynamodbEndpoint);
    project.provide('sqsEndpoint', sqsEndpoint);
    project.provide('tableName', process.env.TABLE_NAME || `test-${Date.now()}`);
  } catch (error) {
    await stop();
    throw error;
  }
  return stop;
}
