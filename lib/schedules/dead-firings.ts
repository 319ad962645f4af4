import { canonicalInstant } from './expressions.js';
import { type FireDeps, recordFiring } from './fire.js';
import type { Firing } from './model.js';

/**
 * A firing that failed on every receive (its worker threw each time): it is
 * recorded on its schedule as `last_error` `internal_error`, unless it was
 * made after all, so that a schedule whose firings fail shows it.
 */
export async function recordDeadFiring(deps: Pick<FireDeps, 'schedules' | 'clock'>, firing: Firing): Promise<void> {
  const scheduledAt = canonicalInstant(firing.scheduled_at);
  const schedule = scheduledAt ? await deps.schedules.find(firing.schedule_id) : undefined;
  if (!schedule || !scheduledAt || schedule.last_fired_at === scheduledAt) return;
  const at = (deps.clock ?? (() => new Date()))().toISOString();
  await recordFiring(deps, schedule, scheduledAt, {
    made: false,
    error: { code: 'internal_error', message: 'The firing failed on every attempt; nothing was made for it.', at, scheduled_at: scheduledAt },
  });
}
