import { failDeadLetteredTask } from '#execution/finish.js';
import { type EnqueueNodeTasks, enqueueNodeTasks, type NodeTask } from '#execution/node-queue.js';
import { type WorkflowRequestsRepo, workflowRequestsRepo } from '#execution/workflow-requests-repository.js';
import { type InteractionsRepo, interactionsRepo } from '#interactions/interactions-repository.js';
import { queueWorker } from '#platform/queue-worker.js';
import { type WebhookNotices, webhookNotices } from '#webhooks/index.js';

/** Marks dead-lettered node tasks failed, and their requests with them, instead of leaving them in progress. */
export const makeHandler = (
  deps: { requests: WorkflowRequestsRepo; interactions: InteractionsRepo; enqueue: EnqueueNodeTasks; webhooks: WebhookNotices } = {
    requests: workflowRequestsRepo(),
    interactions: interactionsRepo(),
    enqueue: enqueueNodeTasks,
    webhooks: webhookNotices(),
  },
) => queueWorker((r) => failDeadLetteredTask(JSON.parse(r.body) as NodeTask, deps));

export const handler = makeHandler();
