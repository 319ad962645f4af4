import { sendToQueue } from '#platform/aws/send-to-queue.js';
import type { TableRef } from '#platform/table/table.js';
import { type DueDeps, sendDueFirings } from '#schedules/due-firings.js';
import type { Firing } from '#schedules/model.js';
import { SCHEDULE_FIRINGS_QUEUE } from '#schedules/queues.js';
import { schedulesRepo } from '#schedules/schedules-repository.js';

/** How often the loop looks for due schedules unless told (`LOCAL_SCHEDULE_PERIOD_MS`). */
export const SCHEDULE_LOOP_PERIOD_MS = 5000;

export interface ScheduleLoopOptions {
  periodMs?: number;
  table?: TableRef;
  /** Where firings go: the `schedule-firings` queue named in this process's environment by default. */
  send?: (firing: Firing) => Promise<void>;
  onError?: (error: unknown) => void;
}

/**
 * What EventBridge Scheduler does in AWS, for `npm start` and `npm run
 * start:synth`: every period, the due schedules' firings are sent to the
 * `schedule-firings` queue, whose worker is the one AWS runs
 * (lib/schedules/due-firings.ts). One pass at a time; the answer stops it
 * after the pass under way.
 */
export function startScheduleLoop(options: ScheduleLoopOptions = {}): () => Promise<void> {
  const deps: DueDeps = {
    schedules: schedulesRepo(options.table),
    send: options.send ?? ((firing) => sendToQueue(SCHEDULE_FIRINGS_QUEUE, firing)),
  };
  let pass: Promise<unknown> = Promise.resolve();
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    pass = sendDueFirings(deps)
      .catch((error: unknown) => options.onError?.(error))
      .finally(() => {
        running = false;
      });
  }, options.periodMs ?? SCHEDULE_LOOP_PERIOD_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await pass;
  };
}

/** The loop's period from `LOCAL_SCHEDULE_PERIOD_MS`, or off when `LOCAL_SCHEDULES=off`. */
export function scheduleLoopFromEnv(env: NodeJS.ProcessEnv = process.env): { periodMs: number } | undefined {
  if (env.LOCAL_SCHEDULES === 'off') return undefined;
  const period = Number(env.LOCAL_SCHEDULE_PERIOD_MS);
  return { periodMs: Number.isFinite(period) && period > 0 ? period : SCHEDULE_LOOP_PERIOD_MS };
}
