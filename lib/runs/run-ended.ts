import { sendToQueue } from '#platform/aws/send-to-queue.js';
import { nameBasedUuid } from '#platform/uuid.js';
import { type Run, runView } from './model.js';
import type { RunEnded } from './queue-messages.js';
import { RUN_ENDED_QUEUE } from './queues.js';

/**
 * What the runs feature tells others when a run has ended, without knowing
 * who listens (the evaluations record the outcome of their attempts; runs
 * import no feature that uses them). Sent by `afterEnd`
 * (lib/runs/end-run.ts) after the run's end is committed, and again
 * whenever `afterEnd` is repeated (a redelivered run task), so a consumer
 * sees every end at least once and must be idempotent. Its schema, for
 * the worker, is in queue-messages.ts.
 */
export type { RunEnded } from './queue-messages.js';

export type NotifyRunEnded = (run: Pick<Run, 'id' | 'account_id' | 'status'>) => Promise<void>;

export const notifyRunEnded: NotifyRunEnded = async (run) => {
  const message: RunEnded = { run_id: run.id, account_id: run.account_id, status: run.status as RunEnded['status'] };
  await sendToQueue(RUN_ENDED_QUEUE, message);
};

/**
 * The `run.<status>` event of the account's event record (decisions.md,
 * Webhooks) for an ended run: written in the transaction that ends it
 * (`endRun`, lib/runs/end-run.ts) with the run as GET /v2/runs/{id}
 * shows it then, announced by `afterEnd`. Its id is derived from the run's
 * and its status, so it is one event however often the end is tried.
 */
export const runEndedEvent = (run: Run) => ({
  id: nameBasedUuid(`run.ended:${run.id}:${run.status}`),
  type: `run.${run.status}`,
  data: runView(run),
});

/**
 * The same event for an end whose whole view could not be stored
 * (`endRun`: DynamoDB refused it for what it holds): the run without what
 * its caller sent (`input` empty, `metadata` null), and without the output
 * such an end leaves out. GET /v2/runs/{id} still shows its input and
 * metadata.
 */
export const reducedRunEndedEvent = (run: Run) => {
  const event = runEndedEvent(run);
  return { ...event, data: { ...event.data, input: '', metadata: null, output: null } };
};
