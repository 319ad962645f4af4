import { sqsDelay } from '#platform/queues.js';
/**
 * When a failed delivery is tried again (decisions.md, Webhooks): after
 * about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then it fails; eight
 * attempts in all, over about 27.6 hours.
 *
 * `WEBHOOK_RETRY_SCHEDULE_SECONDS` (comma-separated seconds, e.g. `1,1,1`)
 * replaces the schedule: the number of entries is the number of retries.
 * Read here only, on each use, by the delivery worker (the CDK stack passes
 * it through `workerEnvironment`; the tests set it in their process).
 */
export const DEFAULT_RETRY_SCHEDULE_SECONDS: readonly number[] = [5, 300, 1800, 7200, 18000, 36000, 36000];

export const RETRY_SCHEDULE_VARIABLE = 'WEBHOOK_RETRY_SCHEDULE_SECONDS';

export function retrySchedule(env: NodeJS.ProcessEnv = process.env): readonly number[] {
  const text = env[RETRY_SCHEDULE_VARIABLE]?.trim();
  if (!text) return DEFAULT_RETRY_SCHEDULE_SECONDS;
  const entries = text.split(',').map((entry) => Number(entry.trim()));
  if (entries.some((n) => !Number.isFinite(n) || n < 0)) {
    throw new Error(`${RETRY_SCHEDULE_VARIABLE} must be comma-separated non-negative numbers of seconds, not "${text}"`);
  }
  return entries;
}

/**
 * After the `attemptInSeries`-th attempt of a series failed (1-based), when
 * the next one is due, or undefined when the series is over.
 */
export function nextAttemptAt(schedule: readonly number[], attemptInSeries: number, now: Date): Date | undefined {
  const wait = schedule[attemptInSeries - 1];
  return wait === undefined ? undefined : new Date(now.getTime() + wait * 1000);
}

/**
 * How long SQS is to hold a message due at `dueAtMs`: the rest of the wait,
 * at most MAX_SQS_DELAY_SECONDS (the message then arrives early and is sent
 * again with what is left), 0 when it is due. Whole seconds, rounded up.
 */
export const sqsDelaySeconds = (dueAtMs: number, nowMs: number): number => sqsDelay((dueAtMs - nowMs) / 1000);
