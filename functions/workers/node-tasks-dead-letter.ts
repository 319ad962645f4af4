import { failDeadLetteredTask } from '#execution/finish.js';
import { type EnqueueNodeTasks, enqueueNodeTasks } from '#execution/node-queue.js';
import { NODE_TASK_MESSAGE } from '#execution/queue-messages.js';
import { type WorkflowRequests, workflowRequests } from '#execution/workflow-requests.js';
import { type InteractionsRepo, interactionsRepo } from '#interactions/interactions-repository.js';
import { queueWorker } from '#platform/queue-worker.js';
import { type WebhookNotices, webhookNotices } from '#webhooks/index.js';

/** Marks dead-lettered node tasks failed, and their requests with them, instead of leaving them in progress. */
export const makeHandler = (
  deps: { requests: WorkflowRequests; interactions: InteractionsRepo; enqueue: EnqueueNodeTasks; webhooks: WebhookNotices } = {
    requests: workflowRequests(),
    interactions: interactionsRepo(),
    enqueue: enqueueNodeTasks,
    webhooks: webhookNotices(),
  },
) => queueWorker(NODE_TASK_MESSAGE, (task) => failDeadLetteredTask(task, deps));

export const handler = makeHandler();
