import type { QueueDefinition } from '#platform/queues.js';

/**
 * The runs of `run: true` evaluations. A message `{evaluation_id,
 * account_id}` asks a worker to move the evaluation on, by its status as
 * read then (lib/evaluations/start-runs.ts): while it runs, fill each slot
 * that has no run yet and start that run; once it is cancelled or failed,
 * cancel its runs that have not ended. Any number of copies of the message
 * are harmless: a slot is filled once and its run's id is derived from it.
 */
export const EVALUATION_RUNS_QUEUE = 'evaluation-runs';

export const EVALUATIONS_QUEUES: readonly QueueDefinition[] = [
  {
    name: EVALUATION_RUNS_QUEUE,
    worker: 'functions/workers/evaluation-runs.ts',
    deadLetterWorker: 'functions/workers/evaluation-runs-dead-letter.ts',
    // An invocation continues in a new message before its deadline, so a long evaluation never hits it.
    workerTimeoutSeconds: 300,
    visibilityTimeoutSeconds: 360,
    maxReceiveCount: 5,
    batchSize: 1,
    maxBatchingWindowSeconds: 0,
    table: 'readwrite',
  },
];
