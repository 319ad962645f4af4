/**
 * Schedules (decisions.md, Schedules): an expression, read in a time zone,
 * that fires a target: a workflow request of a version at its entry nodes,
 * or a run of a harness on a machine. Each firing is made once for its
 * scheduled time (lib/schedules/fire.ts); in AWS the firings come from
 * EventBridge Scheduler (lib/schedules/timer.ts), under `npm start` from
 * the local loop over the table (lib/schedules/due-firings.ts).
 */

export interface WorkflowTarget {
  workflow_version_id: string;
  entry_node_ids: string[];
  payload?: Record<string, unknown>;
}

/** When the machine has a run going or waiting: queue behind it (`enqueue`), or make nothing and record `machine_busy` (`reject`). */
export const SCHEDULE_IF_BUSY = ['enqueue', 'reject'] as const;
export type ScheduleIfBusy = (typeof SCHEDULE_IF_BUSY)[number];

export interface RunTarget {
  harness_id: string;
  machine_id: string;
  /** A run's input: a string or a JSON object (POST /v2/runs). */
  input: string | Record<string, unknown>;
  if_busy: ScheduleIfBusy;
}

export type ScheduleTarget = WorkflowTarget | RunTarget;

export const isRunTarget = (target: ScheduleTarget): target is RunTarget => 'harness_id' in target;

/** Why the latest firing made nothing: the code of the problem the account's limits (or the target) answered. */
export interface ScheduleError {
  code: string;
  message: string;
  /** When it was recorded. */
  at: string;
  /** The firing it is about. */
  scheduled_at: string;
}

export interface Schedule {
  id: string;
  account_id: string;
  name: string;
  /** Canonical form (lib/schedules/expressions.ts). */
  expression: string;
  timezone: string;
  target: ScheduleTarget;
  enabled: boolean;
  /** The next firing while enabled; null while disabled. */
  next_fire_at: string | null;
  /** The scheduled time of the latest firing that made its request or run. */
  last_fired_at: string | null;
  last_error: ScheduleError | null;
  /** Where a rate's periods count from: when the expression was last set or the schedule last enabled. Not shown. */
  anchored_at: string;
  /** Raised by every write: each write is conditioned on the one it read (optimistic), so no change is lost. Not shown. */
  revision: number;
  created_at: string;
  updated_at: string;
}

/** What the firing queue carries and EventBridge Scheduler sends: the schedule and the time the firing is for. */
export interface Firing {
  schedule_id: string;
  scheduled_at: string;
}

/** `sch_`, 9 base-36 digits of creation time, 16 base64url characters (as lib/platform/ids.ts builds public ids). */
export const SCHEDULE_ID = /^sch_[0-9a-z]{9}[A-Za-z0-9_-]{16}$/;

/** Schedules an account may have at once (decisions.md). */
export const MAX_SCHEDULES_PER_ACCOUNT = 50;

export const DEFAULT_TIMEZONE = 'UTC';

/** The code a firing records when its target was deleted (and the schedule is disabled). */
export const TARGET_NOT_FOUND = 'target_not_found';
/** The code a `reject` run target's firing records when the machine is busy. */
export const MACHINE_BUSY = 'machine_busy';

/** The schedule as the API shows it. */
export const scheduleView = (schedule: Schedule) => ({
  id: schedule.id,
  name: schedule.name,
  expression: schedule.expression,
  timezone: schedule.timezone,
  target: schedule.target,
  enabled: schedule.enabled,
  next_fire_at: schedule.next_fire_at,
  last_fired_at: schedule.last_fired_at,
  last_error: schedule.last_error,
  created_at: schedule.created_at,
  updated_at: schedule.updated_at,
});

export type ScheduleView = ReturnType<typeof scheduleView>;

/** What one firing made, or the refusal it recorded instead. */
export type FiringOutcome =
  | { scheduled_at: string; workflow_request_id: string }
  | { scheduled_at: string; run_id: string }
  | { scheduled_at: string; error: ScheduleError };
