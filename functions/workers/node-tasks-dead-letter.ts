import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { failDeadLetteredTask } from '#execution/finish.js';
import { type EnqueueNodeTasks, enqueueNodeTasks, type NodeTask } from '#execution/node-queue.js';
import { type WorkflowRequestsRepo, workflowRequestsRepo } from '#execution/workflow-requests-repository.js';
import { type InteractionsRepo, interactionsRepo } from '#interactions/interactions-repository.js';
import { type WebhookNotices, webhookNotices } from '#webhooks/index.js';

/** Marks dead-lettered node tasks failed, and their requests with them, instead of leaving them in progress. */
export const makeHandler = (
  deps: { requests: WorkflowRequestsRepo; interactions: InteractionsRepo; enqueue: EnqueueNodeTasks; webhooks: WebhookNotices } = {
    requests: workflowRequestsRepo(),
    interactions: interactionsRepo(),
    enqueue: enqueueNodeTasks,
    webhooks: webhookNotices(),
  },
) => {
  const processor = new BatchProcessor(EventType.SQS);
  return async (event: SQSEvent, context: Context) => {
    const record = async (r: SQSRecord) => failDeadLetteredTask(JSON.parse(r.body) as NodeTask, deps);
    return processPartialResponse(event, record, processor, { context, throwOnFullBatchFailure: false });
  };
};

export const handler = makeHandler();
