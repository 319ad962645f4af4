import { resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { QUEUES } from '#app/queues.js';
import { ROUTES, type RouteDefinition } from '#app/routes.js';
import { type QueueDefinition, queueUrlVariable } from '#platform/queues.js';
import { webBuild } from '../../web/build.js';
import { startEmulators } from './emulators.js';
import { type RunningGateway, startGateway } from './gateway.js';
import { REPO_ROOT } from './handlers.js';
import { handlerSource, startPoller } from './poller.js';
import { ensureQueues, ensureTable, type ProvisionedQueue } from './provision.js';
import { startScheduleLoop } from './schedule-loop.js';
import { stopList } from './stops.js';

export interface LocalStackOptions {
  port?: number;
  tableName?: string;
  queuePrefix?: string;
  dynamodbEndpoint?: string;
  sqsEndpoint?: string;
  dataDir?: string;
  routes?: readonly RouteDefinition[];
  queues?: readonly QueueDefinition[];
  region?: string;
  onRequest?: Parameters<typeof startGateway>[0]['onRequest'];
  onWorkerError?: (error: unknown) => void;
  /** Drive the queues' workers in this process (default); off, another process does (`npm run workers`). */
  workers?: boolean;
  /** Fire due schedules from the table every `periodMs` (lib/local/schedule-loop.ts), as EventBridge Scheduler does in AWS; absent, nothing fires them. */
  scheduleLoop?: { periodMs: number };
}

export interface LocalStack {
  url: string;
  dynamodbEndpoint: string;
  sqsEndpoint: string;
  tableName: string;
  queues: ProvisionedQueue[];
  gateway: RunningGateway;
  stop(): Promise<void>;
}

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/** Drives every queue's worker and dead-letter worker; returns their stop. */
export function startWorkers(client: SQSClient, queues: readonly ProvisionedQueue[], region: string, onError?: (error: unknown) => void): () => Promise<void> {
  const sources = queues.flatMap((queue) => (['worker', 'deadLetter'] as const).flatMap((target) => handlerSource(queue, target) ?? []));
  const pollers = sources.map((source) => startPoller({ client, source, region, onError }));
  return async () => {
    await Promise.all(pollers.map((poller) => poller.stop()));
  };
}

/**
 * Brings the service up on this machine: DynamoDB Local and the SQS emulator
 * (unless endpoints are given), the table and queues from their shared
 * definitions, the SQS pollers and the HTTP gateway. Handlers read the same
 * environment variables as in Lambda, so they are set before any is loaded.
 */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const stops = stopList();
  const stopAll = stops.stopAll;
  try {
    const region = options.region ?? 'us-east-1';
    const tableName = options.tableName ?? 'workflow-service';
    const queuePrefix = options.queuePrefix ?? 'workflow-service-';
    const emulators = await startEmulators(options);
    stops.push(emulators.stop);
    const { dynamodbEndpoint, sqsEndpoint } = emulators;

    const ddbClient = new DynamoDBClient({ endpoint: dynamodbEndpoint, region, credentials: LOCAL_CREDENTIALS });
    const sqsClient = new SQSClient({ endpoint: sqsEndpoint, region, credentials: LOCAL_CREDENTIALS });
    stops.push(async () => {
      ddbClient.destroy();
      sqsClient.destroy();
    });
    await ensureTable(ddbClient, tableName);
    const queues = await ensureQueues(sqsClient, queuePrefix, options.queues ?? QUEUES);

    const port = options.port ?? 3000;
    Object.assign(process.env, {
      TABLE_NAME: tableName,
      QUEUE_PREFIX: queuePrefix,
      DYNAMODB_ENDPOINT: dynamodbEndpoint,
      SQS_ENDPOINT: sqsEndpoint,
      AWS_REGION: region,
      // Webhook secrets derive from this key (lib/platform/secrets/service-key.ts); Secrets Manager holds it in AWS.
      SERVICE_KEY_FILE: process.env.SERVICE_KEY_FILE ?? resolve(REPO_ROOT, '.local-data', 'service-key'),
      AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID ?? LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY ?? LOCAL_CREDENTIALS.secretAccessKey,
      // The console and reference pages, built from web/ (cached until a source changes); a Lambda bundle carries them in web/.
      WEB_ASSETS_DIR: process.env.WEB_ASSETS_DIR || webBuild({ compress: false }),
      // No EventBridge Scheduler here, whatever the shell says: schedules live in the table and the local loop fires them.
      SCHEDULER_GROUP_NAME: '',
      ...Object.fromEntries(queues.map((q) => [queueUrlVariable(q.definition.name), q.url])),
    });
    if (port !== 0 || !process.env.BASE_URL) process.env.BASE_URL = `http://127.0.0.1:${port}`;

    if (options.workers !== false) stops.push(startWorkers(sqsClient, queues, region, options.onWorkerError));
    if (options.scheduleLoop) stops.push(startScheduleLoop({ periodMs: options.scheduleLoop.periodMs, onError: options.onWorkerError }));
    const gateway = await startGateway({ routes: options.routes ?? ROUTES, port, onRequest: options.onRequest });
    stops.push(gateway.close);
    if (port === 0) process.env.BASE_URL = gateway.url;
    return { url: gateway.url, dynamodbEndpoint, sqsEndpoint, tableName, queues, gateway, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
