import { nextFireAt } from './expressions.js';
import type { Firing, Schedule } from './model.js';
import type { SchedulesRepo } from './schedules-repository.js';

export interface DueDeps {
  schedules: Pick<SchedulesRepo, 'due' | 'get' | 'save'>;
  /** Sends a firing to the `schedule-firings` queue. */
  send(firing: Firing): Promise<void>;
  clock?: () => Date;
}

/** Due schedules taken by one pass. */
const DUE_BATCH = 100;
const SAVE_ATTEMPTS = 5;

/**
 * What EventBridge Scheduler does in AWS, done from the table (the local
 * loop, lib/local/schedule-loop.ts): each enabled schedule whose next firing
 * is due gets its firing message, THEN its next firing moved on past now,
 * on condition that nobody moved it first. Sent before it is moved, a
 * firing is never lost to a crash between the two; sent twice (a crash, two
 * loops on one table), it is one firing, since the worker makes each
 * `scheduled_at` once. Firings missed while nothing ran are not made up: a
 * schedule due long ago fires once, then goes on from now. Answers how
 * many it sent.
 */
export async function sendDueFirings(deps: DueDeps): Promise<number> {
  const now = (deps.clock ?? (() => new Date()))();
  const due = await deps.schedules.due(now, DUE_BATCH);
  let sent = 0;
  for (const seen of due) {
    const scheduledAt = seen.next_fire_at;
    if (!seen.enabled || scheduledAt === null) continue;
    await deps.send({ schedule_id: seen.id, scheduled_at: scheduledAt });
    sent++;
    await moveOn(deps, seen, scheduledAt, now);
  }
  return sent;
}

/** Moves `next_fire_at` from `scheduledAt` to the first firing after now, unless another write moved it or disabled the schedule. */
async function moveOn(deps: DueDeps, seen: Schedule, scheduledAt: string, now: Date): Promise<void> {
  let current: Schedule | undefined = seen;
  for (let attempt = 0; attempt < SAVE_ATTEMPTS; attempt++) {
    // The index is eventually consistent: what it showed is checked on a consistent read after a refused write.
    if (attempt > 0) current = await deps.schedules.get(seen.account_id, seen.id);
    if (!current?.enabled || current.next_fire_at !== scheduledAt) return;
    const after = new Date(Math.max(now.getTime(), Date.parse(scheduledAt)));
    const next = nextFireAt(current.expression, current.timezone, after, new Date(current.anchored_at)).toISOString();
    if (await deps.schedules.save(current, { ...current, next_fire_at: next })) return;
  }
}
