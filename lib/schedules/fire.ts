import { type Account, limitsInForce } from '#accounts/index.js';
import type { RequestStarter } from '#execution/index.js';
import { AccountSuspendedError, ConflictError, DomainError, UnavailableError, ValidationError } from '#platform/errors.js';
import type { RunsService } from '#runs/index.js';
import type { UsageMeter } from '#usage/index.js';
import { canonicalInstant, nextFireAt } from './expressions.js';
import { firingRequestId, firingRunId } from './firing-ids.js';
import { type Firing, type FiringOutcome, isRunTarget, MACHINE_BUSY, type Schedule, type ScheduleError, TARGET_NOT_FOUND } from './model.js';
import { timerOf } from './schedules.js';
import type { SchedulesRepo } from './schedules-repository.js';
import type { ScheduleTimer } from './timer.js';

export interface FireDeps {
  schedules: Pick<SchedulesRepo, 'find' | 'get' | 'save'>;
  starter: Pick<RequestStarter, 'start'>;
  runs: Pick<RunsService, 'create' | 'getOwned'>;
  machines: { get(accountId: string, machineId: string): Promise<{ current_run_id: string | null; queued_runs: number } | undefined> };
  accounts: { get(accountId: string): Promise<Account | undefined> };
  usage: Pick<UsageMeter, 'admit'>;
  timer: ScheduleTimer;
  clock?: () => Date;
}

/** Writes in a row that lose to another write of the same schedule before giving up (503 / the message comes again). */
const SAVE_ATTEMPTS = 5;

/**
 * A firing from the `schedule-firings` queue (EventBridge Scheduler's or the
 * local loop's message). A schedule deleted or disabled since makes
 * nothing; so does a firing already made or already refused (a duplicate
 * delivery: the same `scheduled_at` in any precision is one firing).
 */
export async function fireScheduled(deps: FireDeps, firing: Firing): Promise<FiringOutcome | undefined> {
  const scheduledAt = canonicalInstant(firing.scheduled_at);
  if (!scheduledAt) throw new Error(`scheduled_at is not a time: ${JSON.stringify(firing.scheduled_at)}`);
  const schedule = await deps.schedules.find(firing.schedule_id);
  if (!schedule?.enabled) return undefined;
  if (schedule.last_fired_at === scheduledAt || schedule.last_error?.scheduled_at === scheduledAt) return undefined;
  return (await fire(deps, schedule, scheduledAt)).outcome;
}

/**
 * One firing of `schedule` for `scheduledAt`: its request or run, created
 * under the id derived from both (so made at most once), with `metadata`
 * `{schedule_id, scheduled_at}`, funded and admitted as any creation is.
 * A refusal by the account (a full usage window, the balance, the ceiling
 * of work in progress, a busy machine under `reject`) is recorded as
 * `last_error` and not retried; a target that is gone disables the schedule
 * (and its timer). Anything else throws, so the message comes again.
 */
export async function fire(
  deps: FireDeps,
  schedule: Schedule,
  scheduledAt: string,
): Promise<{ schedule: Schedule; outcome: FiringOutcome; refusal?: DomainError }> {
  const clock = deps.clock ?? (() => new Date());
  let made: { workflow_request_id: string } | { run_id: string } | undefined;
  let error: ScheduleError | undefined;
  let refusal: DomainError | undefined;
  try {
    made = await make(deps, schedule, scheduledAt);
  } catch (thrown) {
    const refused = refusalOf(thrown);
    if (!refused) throw thrown;
    refusal = thrown as DomainError;
    error = { ...refused, at: clock().toISOString(), scheduled_at: scheduledAt };
  }
  const disable = error?.code === TARGET_NOT_FOUND;
  const saved = await recordFiring(deps, schedule, scheduledAt, { made: made !== undefined, error, disable });
  if (disable) await deps.timer.put({ ...timerOf(schedule), enabled: false });
  if (made) return { schedule: saved, outcome: { scheduled_at: scheduledAt, ...made } };
  return { schedule: saved, outcome: { scheduled_at: scheduledAt, error: error! }, refusal };
}

async function make(deps: FireDeps, schedule: Schedule, scheduledAt: string) {
  const accountId = schedule.account_id;
  const metadata = { schedule_id: schedule.id, scheduled_at: scheduledAt };
  const account = await deps.accounts.get(accountId);
  if (!account) throw new Error(`The account ${accountId} of schedule ${schedule.id} does not exist.`);
  const { target } = schedule;
  if (isRunTarget(target)) {
    const id = firingRunId(schedule.id, scheduledAt);
    // Made by an earlier delivery: its machine is busy with this very run, and usage may have filled since.
    if (await deps.runs.getOwned(accountId, id)) return { run_id: id };
    await admit(deps, account);
    if (target.if_busy === 'reject') {
      const machine = await deps.machines.get(accountId, target.machine_id);
      if (!machine)
        throw new ValidationError([{ name: '/machine_id', location: 'body', reason: 'is not a machine of this account', code: 'invalid_reference' }]);
      if (machine.current_run_id || machine.queued_runs > 0) {
        throw new ConflictError(MACHINE_BUSY, `The machine ${target.machine_id} has a run going or waiting, and the target says if_busy: reject.`);
      }
    }
    const run = await deps.runs.create(
      accountId,
      { harness_id: target.harness_id, machine_id: target.machine_id, input: target.input, metadata },
      id,
      // Within the account's ceiling on work in progress, as POST /v2/runs and the workflow firings.
      { concurrency: limitsInForce(account).concurrency },
    );
    return { run_id: run.id };
  }
  await admit(deps, account);
  const request = await deps.starter.start(
    accountId,
    { workflow_version_id: target.workflow_version_id, entry_node_ids: target.entry_node_ids, payload: target.payload, metadata },
    { id: firingRequestId(schedule.id, scheduledAt), limits: limitsInForce(account) },
  );
  return { workflow_request_id: request.id };
}

async function admit(deps: FireDeps, account: Account): Promise<void> {
  if (account.suspended) throw new AccountSuspendedError();
  await deps.usage.admit(account.id, account);
}

/** Refusals a firing records instead of retrying: the account's limits (429, 403, 402, 409) and what the target no longer allows (422, 404). */
function refusalOf(error: unknown): { code: string; message: string } | undefined {
  if (!(error instanceof DomainError)) return undefined;
  if (error.kind === 'not_found' || (error.kind === 'invalid' && error.code === 'validation_failed')) {
    return {
      code: TARGET_NOT_FOUND,
      message: `The target can no longer be fired (${error.detail}); the schedule was disabled. Change its target and enable it again.`,
    };
  }
  if (['too_many_requests', 'forbidden', 'payment_required', 'conflict', 'invalid'].includes(error.kind)) return { code: error.code, message: error.detail };
  return undefined;
}

const later = (a: string | null, b: string): string => (a !== null && a > b ? a : b);

/**
 * Records a firing on the schedule as it is now (read again when another
 * write came first): `last_fired_at` (never moved back by a late
 * duplicate), `last_error` (set by a refusal, cleared by a later success),
 * and `next_fire_at`, moved on past this firing and never back, so the
 * local loop's next due time is kept and a stale one (AWS, where the table
 * only shows it) is corrected. A schedule deleted meanwhile is answered as
 * it was.
 */
export async function recordFiring(
  deps: Pick<FireDeps, 'schedules'>,
  schedule: Schedule,
  scheduledAt: string,
  result: { made: boolean; error?: ScheduleError; disable?: boolean },
): Promise<Schedule> {
  let current: Schedule | undefined = schedule;
  for (let attempt = 0; attempt < SAVE_ATTEMPTS; attempt++) {
    if (attempt > 0) current = await deps.schedules.get(schedule.account_id, schedule.id);
    if (!current) return schedule;
    const next: Schedule = { ...current };
    if (result.made) {
      next.last_fired_at = later(current.last_fired_at, scheduledAt);
      if (current.last_error && current.last_error.scheduled_at <= scheduledAt) next.last_error = null;
    }
    if (result.error && (!current.last_error || current.last_error.scheduled_at <= scheduledAt)) next.last_error = result.error;
    if (result.disable) {
      next.enabled = false;
      next.next_fire_at = null;
    } else if (current.enabled) {
      const after = nextFireAt(current.expression, current.timezone, new Date(scheduledAt), new Date(current.anchored_at));
      next.next_fire_at = later(current.next_fire_at, after.toISOString());
    }
    const saved = await deps.schedules.save(current, next);
    if (saved) return saved;
  }
  throw new UnavailableError('The schedule is changing too fast to apply this now; retry.');
}
