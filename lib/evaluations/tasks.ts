import { sendToQueue } from '#platform/aws/send-to-queue.js';
import { EVALUATION_RUNS_QUEUE } from './queues.js';

/** A task of the evaluation-runs queue (lib/evaluations/queues.ts): move this evaluation on. */
export interface EvaluationTask {
  evaluation_id: string;
  account_id: string;
  /** How many times a worker found no such evaluation yet (the task is sent before the creation's transaction). */
  absent?: number;
}

export type SendEvaluationTask = (task: EvaluationTask, options?: { delaySeconds?: number }) => Promise<void>;

export const sendEvaluationTask: SendEvaluationTask = (task, { delaySeconds = 0 } = {}) => sendToQueue(EVALUATION_RUNS_QUEUE, task, delaySeconds);
