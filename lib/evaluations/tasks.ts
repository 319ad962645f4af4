import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { sqsClient } from '#platform/aws/clients.js';
import { queueUrlVariable } from '#platform/queues.js';
import { EVALUATION_RUNS_QUEUE } from './queues.js';

/** A task of the evaluation-runs queue (lib/evaluations/queues.ts): move this evaluation on. */
export interface EvaluationTask {
  evaluation_id: string;
  account_id: string;
  /** How many times a worker found no such evaluation yet (the task is sent before the creation's transaction). */
  absent?: number;
}

export type SendEvaluationTask = (task: EvaluationTask, options?: { delaySeconds?: number }) => Promise<void>;

export const sendEvaluationTask: SendEvaluationTask = async (task, { delaySeconds = 0 } = {}) => {
  const queueUrl = process.env[queueUrlVariable(EVALUATION_RUNS_QUEUE)];
  if (!queueUrl) throw new Error(`${queueUrlVariable(EVALUATION_RUNS_QUEUE)} is not set`);
  await sqsClient().send(
    new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(task), DelaySeconds: Math.min(900, Math.max(0, Math.ceil(delaySeconds))) }),
  );
};
