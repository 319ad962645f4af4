import { randomUUID } from 'node:crypto';
import { NODE_TASKS_QUEUE } from '#execution/queues.js';
import type { WorkflowRequests } from '#execution/workflow-requests.js';
import type { LocalStack } from '#local/stack.js';
import type { TableRef } from '#platform/table/table.js';
import type { DynamoCountingProxy } from './dynamo-proxy.js';
import { log } from './format.js';
import { type Api, apiClient, type Running, signIn, startCountedStack, tableOn } from './local-stack.js';
import type { SqsCountingProxy } from './sqs-proxy.js';

/** The local stack the engine benchmarks share, with both emulators behind counting proxies. */
export interface EngineStack {
  stack: LocalStack;
  ddb: DynamoCountingProxy;
  sqs: SqsCountingProxy;
  token: string;
  accountId: string;
  /** The table straight on DynamoDB Local: the bench's own reads and writes, never counted. */
  direct: TableRef;
  /** The same table through the counting proxy (for the calibration calls). */
  proxied: TableRef;
  repo: WorkflowRequests;
  api: Api;
  workerQueueUrl: string;
  deadLetterQueueUrl: string;
  workerErrors: string[];
}

export async function startEngineStack(running: Running): Promise<EngineStack> {
  const workerErrors: string[] = [];
  const { stack, dynamodb, ddb, sqsEmulator, sqs } = await startCountedStack(running, {
    proxySqs: true,
    consumedCapacity: true,
    tableName: `bench-engine-${Date.now()}`,
    queuePrefix: `bench${randomUUID().slice(0, 6)}-`,
    onWorkerError: (error) => workerErrors.push(String((error as Error)?.message ?? error)),
  });
  if (!sqsEmulator || !sqs) throw new Error('the SQS emulator did not start');
  log(`engine: local stack at ${stack.url}; DynamoDB Local ${dynamodb.endpoint} behind ${ddb.url}; SQS emulator ${sqsEmulator.endpoint} behind ${sqs.url}`);

  const { workflowRequests } = await import('#execution/workflow-requests.js');
  const direct = await tableOn(dynamodb.endpoint, stack.tableName);
  const proxied = await tableOn(ddb.url, stack.tableName);
  const { accountId, token } = await signIn(stack.url, direct, { duration_minutes: 120 });
  const queue = stack.queues.find((q) => q.definition.name === NODE_TASKS_QUEUE);
  if (!queue) throw new Error(`the local stack has no ${NODE_TASKS_QUEUE} queue: it is missing from QUEUES in lib/app/queues.ts`);
  return {
    stack,
    ddb,
    sqs,
    token,
    accountId,
    direct,
    proxied,
    repo: workflowRequests(direct),
    api: apiClient(stack.url, token),
    workerQueueUrl: queue.url,
    deadLetterQueueUrl: queue.dlqUrl,
    workerErrors,
  };
}
