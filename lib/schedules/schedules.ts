import type { RequestStarter } from '#execution/index.js';
import { NotFoundError, UnavailableError, ValidationError } from '#platform/errors.js';
import { newScheduleId } from '#platform/ids.js';
import { nextFireAt, parseExpression } from './expressions.js';
import { isRunTarget, type Schedule, type ScheduleTarget } from './model.js';
import type { SchedulesRepo } from './schedules-repository.js';
import type { CreateScheduleInput, TargetInput, UpdateScheduleInput } from './schemas.js';
import type { ScheduleTimer } from './timer.js';

/** The schedules of an account: create, change and delete, each with its timer (EventBridge Scheduler in AWS). */
export interface ScheduleDeps {
  schedules: Pick<SchedulesRepo, 'create' | 'get' | 'save' | 'delete' | 'owner' | 'removeOwner'>;
  /** Whether the target could fire now: resolves, or throws the 422 naming its field. */
  targets: TargetCheck;
  timer: ScheduleTimer;
  clock?: () => Date;
}

export interface TargetCheck {
  check(accountId: string, target: ScheduleTarget): Promise<void>;
}

/** Writes in a row that lose to another write of the same schedule before 503. */
const SAVE_ATTEMPTS = 5;

/**
 * The target check of creation and change: a workflow target as running it
 * is checked (lib/execution's `check`), a run target's harness and machine
 * as the account's; a refusal names its field under `/target`.
 */
export function targetCheck(deps: {
  starter: Pick<RequestStarter, 'check'>;
  harnesses: { get(accountId: string, id: string): Promise<unknown> };
  machines: { get(accountId: string, id: string): Promise<unknown> };
}): TargetCheck {
  return {
    async check(accountId, target) {
      if (!isRunTarget(target)) {
        try {
          await deps.starter.check(accountId, target);
        } catch (error) {
          if (!(error instanceof ValidationError)) throw error;
          throw new ValidationError((error.options.errors ?? []).map((e) => ({ ...e, name: `/target${e.name}` })));
        }
        return;
      }
      const [harness, machine] = await Promise.all([deps.harnesses.get(accountId, target.harness_id), deps.machines.get(accountId, target.machine_id)]);
      const errors = [
        ...(harness ? [] : [{ name: '/target/harness_id', location: 'body' as const, reason: 'is not a harness of this account', code: 'invalid_reference' }]),
        ...(machine ? [] : [{ name: '/target/machine_id', location: 'body' as const, reason: 'is not a machine of this account', code: 'invalid_reference' }]),
      ];
      if (errors.length > 0) throw new ValidationError(errors);
    },
  };
}

/** The target as stored: only its kind's fields, a run's `if_busy` defaulted. */
function targetOf(input: TargetInput): ScheduleTarget {
  if (input.harness_id !== undefined) {
    return { harness_id: input.harness_id, machine_id: input.machine_id!, input: input.input!, if_busy: input.if_busy ?? 'enqueue' };
  }
  return {
    workflow_version_id: input.workflow_version_id!,
    entry_node_ids: input.entry_node_ids!,
    ...(input.payload === undefined ? {} : { payload: input.payload }),
  };
}

/** What a schedule's timer is told of it. */
export const timerOf = (schedule: Schedule) => ({ id: schedule.id, expression: schedule.expression, timezone: schedule.timezone, enabled: schedule.enabled });

const nextOf = (schedule: Pick<Schedule, 'expression' | 'timezone' | 'enabled' | 'anchored_at'>, now: Date): string | null =>
  schedule.enabled ? nextFireAt(schedule.expression, schedule.timezone, now, new Date(schedule.anchored_at)).toISOString() : null;

/**
 * A new schedule (409 `schedule_limit_reached` past 50), then its timer. A
 * timer that cannot be set takes the schedule back out, so that a retry
 * (the same Idempotency-Key) does not leave a schedule nothing fires.
 */
export async function createSchedule(deps: ScheduleDeps, accountId: string, input: CreateScheduleInput): Promise<Schedule> {
  const target = targetOf(input.target);
  await deps.targets.check(accountId, target);
  const now = (deps.clock ?? (() => new Date()))();
  const at = now.toISOString();
  const timing = { expression: parseExpression(input.expression).text, timezone: input.timezone, enabled: input.enabled, anchored_at: at };
  const schedule: Schedule = {
    id: newScheduleId(),
    account_id: accountId,
    name: input.name,
    ...timing,
    target,
    next_fire_at: nextOf(timing, now),
    last_fired_at: null,
    last_error: null,
    revision: 1,
    created_at: at,
    updated_at: at,
  };
  await deps.schedules.create(schedule);
  try {
    await deps.timer.put(timerOf(schedule));
  } catch (error) {
    if (await deps.schedules.delete(accountId, schedule.id)) await deps.schedules.removeOwner(schedule.id);
    throw error;
  }
  return schedule;
}

/** The account's schedule; 404 alike for a malformed, unknown or other account's id. */
export async function findSchedule(schedules: Pick<SchedulesRepo, 'get'>, accountId: string, scheduleId: string): Promise<Schedule> {
  const schedule = await schedules.get(accountId, scheduleId);
  if (!schedule) throw new NotFoundError('No such schedule.');
  return schedule;
}

/**
 * Changes the fields given. A new expression or time zone, or enabling a
 * disabled schedule, sets its timing afresh (a rate counts from now); the
 * next firing is computed again; disabling clears it. Then the timer is
 * put, also when nothing changed, so that repeating a change whose timer
 * failed sets it.
 */
export async function updateSchedule(deps: ScheduleDeps, accountId: string, scheduleId: string, patch: UpdateScheduleInput): Promise<Schedule> {
  const target = patch.target === undefined ? undefined : targetOf(patch.target);
  if (target) await deps.targets.check(accountId, target);
  const expression = patch.expression === undefined ? undefined : parseExpression(patch.expression).text;
  for (let attempt = 0; attempt < SAVE_ATTEMPTS; attempt++) {
    const read = await findSchedule(deps.schedules, accountId, scheduleId);
    const now = (deps.clock ?? (() => new Date()))();
    const next: Schedule = {
      ...read,
      name: patch.name ?? read.name,
      expression: expression ?? read.expression,
      timezone: patch.timezone ?? read.timezone,
      target: target ?? read.target,
      enabled: patch.enabled ?? read.enabled,
      updated_at: now.toISOString(),
    };
    const retimed = next.expression !== read.expression || next.timezone !== read.timezone || (next.enabled && !read.enabled);
    if (retimed) next.anchored_at = now.toISOString();
    next.next_fire_at = !next.enabled ? null : retimed || read.next_fire_at === null ? nextOf(next, now) : read.next_fire_at;
    const saved = await deps.schedules.save(read, next);
    if (!saved) continue;
    await deps.timer.put(timerOf(saved));
    return saved;
  }
  throw new UnavailableError('The schedule is changing too fast to apply this now; retry.');
}

/**
 * Deletes the schedule, then its timer, then the item naming its owner. A
 * delete that failed part-way is finished by the next one (the owner item
 * says whose it was), which answers 204; otherwise a schedule that is not
 * there is 404.
 */
export async function deleteSchedule(deps: Pick<ScheduleDeps, 'schedules' | 'timer'>, accountId: string, scheduleId: string): Promise<void> {
  const deleted = await deps.schedules.delete(accountId, scheduleId);
  if (!deleted && (await deps.schedules.owner(scheduleId)) !== accountId) throw new NotFoundError('No such schedule.');
  await deps.timer.remove(scheduleId);
  await deps.schedules.removeOwner(scheduleId);
}
