import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { chatsRepo } from '../../lib/data/chats.js';
import { interactionsRepo } from '../../lib/data/interactions.js';
import { workflowRequestsRepo } from '../../lib/data/workflow-requests.js';
import { workflowsRepo } from '../../lib/data/workflows.js';
import { processNodeTask, type EngineDeps } from '../../lib/engine/executor.js';
import { enqueueNodeTasks, type NodeTask } from '../../lib/engine/node-queue.js';

/**
 * Worker for the node-tasks queue. Each record is processed on its own; a
 * record that throws (including RetryLater) is reported in
 * `batchItemFailures` and comes back after the visibility timeout.
 */
export const makeHandler = (
  deps: EngineDeps = { requests: workflowRequestsRepo(), versions: workflowsRepo(), chats: chatsRepo(), enqueue: enqueueNodeTasks, interactions: interactionsRepo() },
) => {
  const processor = new BatchProcessor(EventType.SQS);
  return async (event: SQSEvent, context: Context) => {
    const record = async (r: SQSRecord) => processNodeTask(JSON.parse(r.body) as NodeTask, deps, () => context.getRemainingTimeInMillis());
    return processPartialResponse(event, record, processor, { context, throwOnFullBatchFailure: false });
  };
};

export const handler = makeHandler();
