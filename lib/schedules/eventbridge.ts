import type { SchedulerClient, UpdateScheduleCommandInput } from '@aws-sdk/client-scheduler';
import { clientSettings } from '#platform/aws/clients.js';

/**
 * Each schedule as an EventBridge Scheduler schedule of the stack's group
 * (infra/schedules.ts), named after the schedule's id, sending the firing
 * message to the `schedule-firings` queue at each time. The stack sets these
 * variables only on the functions whose contract says `schedules`.
 */
export const SCHEDULER_VARIABLES = {
  group: 'SCHEDULER_GROUP_NAME',
  /** The firings queue's ARN. */
  target: 'SCHEDULER_TARGET_ARN',
  /** The role EventBridge Scheduler sends with; the functions may pass this one only. */
  role: 'SCHEDULER_ROLE_ARN',
  /** Where a firing that could not be delivered goes (the firings queue's dead-letter queue); optional. */
  deadLetter: 'SCHEDULER_DEAD_LETTER_ARN',
} as const;

/** What the timer is told of a schedule (the ScheduleTimer's argument, lib/schedules/timer.ts). */
interface TimedSchedule {
  id: string;
  expression: string;
  timezone: string;
  enabled: boolean;
}

/** EventBridge Scheduler's rule for a schedule name. */
const SCHEDULE_NAME = /^[0-9a-zA-Z\-_.]{1,64}$/;

/**
 * Filled in by EventBridge Scheduler when it sends: the time the firing was
 * due (ISO 8601, UTC), not when it was delivered, so a retried delivery
 * names the same `scheduled_at` and the worker makes the firing once.
 */
const SCHEDULED_TIME = '<aws.scheduler.scheduled-time>';

/**
 * Delivering to SQS fails only briefly (throttling, an outage); a firing
 * still undelivered after an hour is late enough to be reported rather than
 * made: EventBridge Scheduler puts it, its body the firing message, in the
 * firings' dead-letter queue, whose worker records it on the schedule and
 * whose alarm sees it.
 */
const RETRY_POLICY = { MaximumEventAgeInSeconds: 3600, MaximumRetryAttempts: 10 };

// Loaded on the first call: the schedules' functions bundle it, but their
// reads and lists, and every call under `npm start`, never evaluate it.
const schedulerSdk = () => import('@aws-sdk/client-scheduler');

let sharedClient: Promise<SchedulerClient> | undefined;
const defaultClient = (env: NodeJS.ProcessEnv): Promise<SchedulerClient> =>
  (sharedClient ??= schedulerSdk().then(({ SchedulerClient }) => {
    // LocalStack runs EventBridge Scheduler: its endpoint comes from the SDK's own variables.
    const endpoint = env.AWS_ENDPOINT_URL_SCHEDULER || env.AWS_ENDPOINT_URL || undefined;
    return new SchedulerClient(clientSettings(endpoint, env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1'));
  }));

const errorName = (error: unknown): string | undefined => (error instanceof Error ? error.name : undefined);

/**
 * The ScheduleTimer of AWS. `put` replaces the whole schedule (UpdateSchedule
 * takes every field), creating it when absent, so a put repeated after a
 * function died, or meeting another put of the same schedule, leaves one
 * schedule with every field as a put said, never an error. `remove` of an
 * absent schedule is done.
 */
export function eventBridgeTimer(
  env: NodeJS.ProcessEnv = process.env,
  client: () => Promise<SchedulerClient> = () => defaultClient(env),
): { put(schedule: TimedSchedule): Promise<void>; remove(scheduleId: string): Promise<void> } {
  const setting = (name: string): string => {
    const value = env[name]?.trim();
    if (!value) throw new Error(`EventBridge Scheduler is not configured: ${name} is not set (the stack sets it with ${SCHEDULER_VARIABLES.group}).`);
    return value;
  };
  const nameOf = (id: string): string => {
    if (!SCHEDULE_NAME.test(id)) throw new Error(`A schedule id cannot name an EventBridge schedule: ${JSON.stringify(id)}.`);
    return id;
  };
  return {
    async put(schedule) {
      nameOf(schedule.id);
      const input = scheduleInput(schedule, {
        group: setting(SCHEDULER_VARIABLES.group),
        targetArn: setting(SCHEDULER_VARIABLES.target),
        roleArn: setting(SCHEDULER_VARIABLES.role),
        deadLetterArn: env[SCHEDULER_VARIABLES.deadLetter]?.trim() || undefined,
      });
      const [scheduler, { CreateScheduleCommand, UpdateScheduleCommand }] = await Promise.all([client(), schedulerSdk()]);
      try {
        await scheduler.send(new UpdateScheduleCommand(input));
        return;
      } catch (error) {
        if (errorName(error) !== 'ResourceNotFoundException') throw error;
      }
      try {
        await scheduler.send(new CreateScheduleCommand(input));
      } catch (error) {
        // Another put created it since: ours is the later word.
        if (errorName(error) !== 'ConflictException') throw error;
        await scheduler.send(new UpdateScheduleCommand(input));
      }
    },
    async remove(scheduleId) {
      const input = { Name: nameOf(scheduleId), GroupName: setting(SCHEDULER_VARIABLES.group) };
      const [scheduler, { DeleteScheduleCommand }] = await Promise.all([client(), schedulerSdk()]);
      try {
        await scheduler.send(new DeleteScheduleCommand(input));
      } catch (error) {
        if (errorName(error) !== 'ResourceNotFoundException') throw error;
      }
    },
  };
}

/** The full request of CreateSchedule and UpdateSchedule (the same fields) for one schedule. */
export function scheduleInput(
  schedule: TimedSchedule,
  settings: { group: string; targetArn: string; roleArn: string; deadLetterArn?: string },
): UpdateScheduleCommandInput {
  return {
    Name: schedule.id,
    GroupName: settings.group,
    ScheduleExpression: eventBridgeExpression(schedule.expression),
    ScheduleExpressionTimezone: schedule.timezone,
    State: schedule.enabled ? 'ENABLED' : 'DISABLED',
    FlexibleTimeWindow: { Mode: 'OFF' },
    Target: {
      Arn: settings.targetArn,
      RoleArn: settings.roleArn,
      Input: JSON.stringify({ schedule_id: schedule.id, scheduled_at: SCHEDULED_TIME }),
      RetryPolicy: RETRY_POLICY,
      ...(settings.deadLetterArn ? { DeadLetterConfig: { Arn: settings.deadLetterArn } } : {}),
    },
  };
}

interface FieldRange {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];
const FIELDS: readonly FieldRange[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS },
];
// Standard cron's days: 0 and 7 are Sunday.
const DAY_OF_WEEK: FieldRange = { name: 'day-of-week', min: 0, max: 7, names: DAYS };

const RATE = /^rate\(\s*(\d+)\s+(minute|minutes|hour|hours|day|days)\s*\)$/;
const CRON = /^cron\(\s*(.*?)\s*\)$/;

/**
 * Our expression as EventBridge Scheduler's. `rate(n unit)` keeps its value,
 * the unit singular for 1 and plural otherwise, as EventBridge requires.
 * A five-field cron becomes its six fields `cron(min hour dom month dow
 * year)`: the year `*`, and `?` in whichever of day-of-month and day-of-week
 * is `*` (EventBridge refuses two restricted ones, and so does the API).
 * Day-of-week is written with EventBridge's names, SUN to SAT, which need no
 * shift (standard cron counts 0 or 7 for Sunday, EventBridge 1); its steps,
 * which EventBridge does not take there, become the days they select. A
 * step over a range (`10-40/5`) becomes its list; `*` with a step starts at
 * the field's first value (`0/15`).
 */
export function eventBridgeExpression(expression: string): string {
  const rate = RATE.exec(expression.trim());
  if (rate) {
    const value = Number(rate[1]);
    const unit = rate[2]!.replace(/s$/, '');
    return `rate(${value} ${value === 1 ? unit : `${unit}s`})`;
  }
  const cron = CRON.exec(expression.trim());
  const fields = cron?.[1]?.split(/\s+/);
  if (fields?.length !== 5) throw new Error(`Not a schedule expression: ${JSON.stringify(expression)}.`);
  const [minute, hour, dayOfMonth, month, dayOfWeek] = fields as [string, string, string, string, string];
  if (dayOfMonth !== '*' && dayOfWeek !== '*') {
    throw new Error(`Day-of-month and day-of-week are both restricted: ${JSON.stringify(expression)}.`);
  }
  const [m, h, dom, mon] = [minute, hour, dayOfMonth, month].map((field, i) => convertField(field, FIELDS[i]!));
  const dow = dayOfWeek === '*' ? '?' : daysOfWeek(dayOfWeek);
  return `cron(${m} ${h} ${dayOfWeek === '*' ? dom : '?'} ${mon} ${dow} *)`;
}

/** A value of a field: a number in its range or, where it has them, a name (any case). */
function fieldValue(text: string, field: FieldRange): number {
  const named = field.names?.indexOf(text.toUpperCase()) ?? -1;
  // Month names count from 1, day names from 0.
  if (named >= 0) return field.names === MONTHS ? named + 1 : named;
  if (!/^\d+$/.test(text)) throw new Error(`Not a ${field.name} value: ${JSON.stringify(text)}.`);
  const value = Number(text);
  if (value < field.min || value > field.max) throw new Error(`${field.name} ${value} is outside ${field.min}-${field.max}.`);
  return value;
}

/** One element of a list: `*`, `a`, `a-b`, each with an optional `/step`, as the values it selects in order. */
function elementValues(element: string, field: FieldRange): { from: number; to: number; step: number; star: boolean; stepped: boolean } {
  const [range, stepText, extra] = element.split('/');
  if (extra !== undefined || range === undefined || range === '') throw new Error(`Not a ${field.name} element: ${JSON.stringify(element)}.`);
  let step = 1;
  if (stepText !== undefined) {
    if (!/^\d+$/.test(stepText) || Number(stepText) < 1) throw new Error(`Not a ${field.name} step: ${JSON.stringify(element)}.`);
    step = Number(stepText);
  }
  if (range === '*') return { from: field.min, to: field.max, step, star: true, stepped: stepText !== undefined };
  const [fromText, toText, more] = range.split('-');
  if (more !== undefined) throw new Error(`Not a ${field.name} range: ${JSON.stringify(element)}.`);
  const from = fieldValue(fromText!, field);
  // `a/n` runs from a to the field's end.
  const to = toText === undefined ? (stepText === undefined ? from : field.max) : fieldValue(toText, field);
  if (to < from) throw new Error(`A ${field.name} range runs backwards: ${JSON.stringify(element)}.`);
  return { from, to, step, star: false, stepped: stepText !== undefined };
}

/** A field but day-of-week, element by element, in the form EventBridge takes. */
function convertField(text: string, field: FieldRange): string {
  return text
    .split(',')
    .map((element) => {
      const { from, to, step, star, stepped } = elementValues(element, field);
      if (star) return stepped && step > 1 ? `${field.min}/${step}` : '*';
      if (!stepped || step === 1) return from === to ? String(from) : `${from}-${to}`;
      // A step to the field's end is EventBridge's `a/n`; one that stops earlier is its list.
      if (to === field.max) return `${from}/${step}`;
      const values: number[] = [];
      for (let v = from; v <= to; v += step) values.push(v);
      return values.join(',');
    })
    .join(',');
}

/** Day-of-week as the set of days it selects, written SUN..SAT with runs of three or more as ranges; every day is `*`. */
function daysOfWeek(text: string): string {
  const days = new Set<number>();
  for (const element of text.split(',')) {
    const { from, to, step } = elementValues(element, DAY_OF_WEEK);
    for (let v = from; v <= to; v += step) days.add(v % 7);
  }
  if (days.size === 7) return '*';
  const sorted = [...days].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(
      j - i >= 2
        ? `${DAYS[sorted[i]!]}-${DAYS[sorted[j]!]}`
        : sorted
            .slice(i, j + 1)
            .map((d) => DAYS[d])
            .join(','),
    );
    i = j + 1;
  }
  return parts.join(',');
}
