import { interactionsService } from '#interactions/index.js';
import { queueWorker } from '#platform/queue-worker.js';
import { usageMeter } from '#usage/index.js';
import { webhookNotices } from '#webhooks/index.js';
import { chatLookup, workflowVersions } from '#workflows/index.js';
import { type EngineDeps, processNodeTask } from './executor.js';
import { enqueueNodeTasks, type NodeTask } from './node-queue.js';
import type { WorkerRuntime } from './node-runner.js';
import { workflowRequestsRepo } from './workflow-requests-repository.js';

export const engineDeps = (runtime: WorkerRuntime): EngineDeps => ({
  requests: workflowRequestsRepo(),
  versions: workflowVersions(),
  chats: chatLookup(),
  enqueue: enqueueNodeTasks,
  interactions: interactionsService(),
  runtime,
  usage: usageMeter(),
  webhooks: webhookNotices(),
});

/**
 * An SQS worker running node tasks. Each record is processed on its own; a
 * record that throws (including RetryLater) is reported in
 * `batchItemFailures` and comes back after the visibility timeout.
 */
export function nodeTaskHandler(deps: EngineDeps) {
  return queueWorker((r, context) => processNodeTask(JSON.parse(r.body) as NodeTask, deps, () => context.getRemainingTimeInMillis()));
}
