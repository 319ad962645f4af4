import { MACHINE_MEMORY_MB, MACHINE_SIZES, type MachineSize } from '#machines/index.js';
import type { QueueDefinition } from '#platform/queues.js';

/**
 * The agent loops of runs, one queue per machine size: a run's loop runs in
 * a worker with the memory of its machine's size (lib/machines/sizes.ts).
 * A message `{run_id}` asks a worker to move the run on: start it if it is
 * next on its machine, run its loop, resume it after an answer, fail it when
 * its interaction expired, or hand its machine on once it has ended. Any
 * number of copies of the message are harmless (docs/architecture.md).
 */
export const runTasksQueue = (size: MachineSize): string => `run-tasks-${size}`;

const RUN_TASKS_QUEUES: readonly QueueDefinition[] = MACHINE_SIZES.map((size) => ({
  name: runTasksQueue(size),
  worker: 'functions/workers/run-tasks.ts',
  deadLetterWorker: 'functions/workers/run-tasks-dead-letter.ts',
  // The loop continues in a new message before the deadline, so one invocation is a few model turns at most.
  workerTimeoutSeconds: 900,
  visibilityTimeoutSeconds: 960,
  maxReceiveCount: 5,
  batchSize: 1,
  maxBatchingWindowSeconds: 0,
  table: 'readwrite',
  memoryMb: MACHINE_MEMORY_MB[size],
  invokesModels: true,
}));

/**
 * `{run_id, account_id, status}` for every run that has ended, at least once
 * (lib/runs/run-ended.ts). Its worker (functions/workers/run-ended.ts) is
 * composed of the features that follow runs (evaluations), so runs import
 * none of them. A message about a run no feature recorded costs its
 * worker one Query.
 */
export const RUN_ENDED_QUEUE = 'run-ended';

const RUN_ENDED: QueueDefinition = {
  name: RUN_ENDED_QUEUE,
  worker: 'functions/workers/run-ended.ts',
  workerTimeoutSeconds: 60,
  visibilityTimeoutSeconds: 90,
  maxReceiveCount: 5,
  batchSize: 10,
  maxBatchingWindowSeconds: 0,
  table: 'readwrite',
};

export const RUNS_QUEUES: readonly QueueDefinition[] = [...RUN_TASKS_QUEUES, RUN_ENDED];
