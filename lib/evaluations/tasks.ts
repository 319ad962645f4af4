import { sendToQueue } from '#platform/aws/send-to-queue.js';
import type { EvaluationTask } from './queue-messages.js';
import { EVALUATION_RUNS_QUEUE } from './queues.js';

/** A task of the evaluation-runs queue (lib/evaluations/queues.ts): move this evaluation on; its schema, for the workers, is in queue-messages.ts. */
export type { EvaluationTask } from './queue-messages.js';

export type SendEvaluationTask = (task: EvaluationTask, options?: { delaySeconds?: number }) => Promise<void>;

export const sendEvaluationTask: SendEvaluationTask = (task, { delaySeconds = 0 } = {}) => sendToQueue(EVALUATION_RUNS_QUEUE, task, delaySeconds);
