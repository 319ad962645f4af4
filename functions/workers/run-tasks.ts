import { randomUUID } from 'node:crypto';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import type { LoopDeps } from '#runs/agent-loop.js';
import { loopDeps } from '#runs/loop-deps.js';
import { moveRun } from '#runs/move-run.js';
import type { RunTask } from '#runs/wake.js';

/**
 * Worker of the run-tasks queues (one per machine size): moves each run on
 * (lib/runs/move-run.ts). A record that throws comes back after the
 * visibility timeout; after five receives the dead-letter worker fails it.
 */
export const makeHandler = (deps: LoopDeps = loopDeps()) => {
  const processor = new BatchProcessor(EventType.SQS);
  return async (event: SQSEvent, context: Context) => {
    const record = async (r: SQSRecord) =>
      moveRun(deps, JSON.parse(r.body) as RunTask, {
        owner: randomUUID(),
        remainingMs: () => context.getRemainingTimeInMillis(),
        redelivered: Number(r.attributes.ApproximateReceiveCount) > 1,
      });
    return processPartialResponse(event, record, processor, { context, throwOnFullBatchFailure: false });
  };
};

export const handler = makeHandler();
