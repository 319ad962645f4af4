import { nameBasedUuid, parse } from '#platform/uuid.js';

/**
 * The ids of what a firing makes, derived from (schedule id, scheduled
 * time), so that every delivery of one firing (EventBridge's retries, SQS's
 * redeliveries, two local loops) asks for the same request or run, and
 * creating it again finds it. `scheduledAt` is canonical (canonicalInstant).
 */
export const firingRequestId = (scheduleId: string, scheduledAt: string): string => nameBasedUuid(`schedule-firing\n${scheduleId}\n${scheduledAt}`);

/** A run id of the usual shape (lib/platform/ids.ts): its time part is the scheduled time, so firings' runs sort in firing order. */
export function firingRunId(scheduleId: string, scheduledAt: string): string {
  const time = Date.parse(scheduledAt).toString(36).padStart(9, '0');
  const bytes = parse(nameBasedUuid(`schedule-run\n${scheduleId}\n${scheduledAt}`)).subarray(0, 12);
  return `run_${time}${Buffer.from(bytes).toString('base64url')}`;
}
