import { interactionsService } from '#interactions/index.js';
import { queueWorker } from '#platform/queue-worker.js';
import { usageMeter } from '#usage/index.js';
import { webhookNotices } from '#webhooks/index.js';
import { chatLookup, workflowVersions } from '#workflows/index.js';
import { type EngineDeps, processNodeTask } from './executor.js';
import { enqueueNodeTasks } from './node-queue.js';
import type { WorkerRuntime } from './node-runner.js';
import { NODE_TASK_MESSAGE } from './queue-messages.js';
import { workflowRequests } from './workflow-requests.js';

export const engineDeps = (runtime: WorkerRuntime): EngineDeps => ({
  requests: workflowRequests(),
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
  return queueWorker(NODE_TASK_MESSAGE, (task, _r, context) => processNodeTask(task, deps, () => context.getRemainingTimeInMillis()));
}
