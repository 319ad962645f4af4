import { resolve } from 'node:path';
import { SQSClient } from '@aws-sdk/client-sqs';
import { QUEUES } from '#app/queues.js';
import { queueUrlVariable } from '#platform/queues.js';
import { LocalStackError } from './emulators.js';
import { REPO_ROOT } from './handlers.js';
import { ensureQueues } from './provision.js';
import { startWorkers } from './stack.js';
import { readLocalStackState } from './state.js';

/**
 * `npm run workers`: the queues' workers alone, in their own process,
 * against the `npm start` running beside it (started with LOCAL_WORKERS=off).
 * Killing this process kills the workers in the middle of whatever they do,
 * as a crashed Lambda would; starting it again lets the queues' next
 * deliveries take the work over (docs/api/runs.md).
 */
async function main(): Promise<void> {
  const state = readLocalStackState();
  if (!state) throw new LocalStackError('No npm start is running here; start it first (LOCAL_WORKERS=off npm start).');
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  const region = 'us-east-1';
  const queuePrefix = process.env.QUEUE_PREFIX ?? 'workflow-service-';
  Object.assign(process.env, {
    TABLE_NAME: state.tableName,
    QUEUE_PREFIX: queuePrefix,
    DYNAMODB_ENDPOINT: state.dynamodbEndpoint,
    SQS_ENDPOINT: state.sqsEndpoint,
    AWS_REGION: region,
    AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID ?? 'local',
    AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY ?? 'local',
    BASE_URL: state.url,
    // The key `npm start` signs with (webhook secrets, cursors): the same file, so deliveries made here verify.
    SERVICE_KEY_FILE: process.env.SERVICE_KEY_FILE ?? resolve(REPO_ROOT, '.local-data', 'service-key'),
  });
  const client = new SQSClient({ endpoint: state.sqsEndpoint, region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const queues = await ensureQueues(client, queuePrefix, QUEUES);
  for (const queue of queues) process.env[queueUrlVariable(queue.definition.name)] = queue.url;
  const stop = startWorkers(client, queues, region, (error) => console.error('worker error:', error));
  console.log(`Workers of ${queues.length} queues running against ${state.url} (pid ${process.pid}). Ctrl-C or kill to stop.`);
  process.on('SIGINT', () => void stop().then(() => process.exit(0)));
  process.on('SIGTERM', () => void stop().then(() => process.exit(0)));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
