import { Cron } from 'croner';

/**
 * A schedule's expression (decisions.md, Schedules): `cron(<min> <hour>
 * <day-of-month> <month> <day-of-week>)` read in the schedule's IANA time
 * zone, or `rate(<n> <unit>)`. The cron syntax is the portable subset that
 * EventBridge Scheduler's cron can express too (numbers, `*`, `,`, `-`, `/`,
 * month and day names), because in AWS the same schedule is an EventBridge
 * schedule; croner computes the times (time zones and daylight saving).
 */

export type Expression =
  | { kind: 'cron'; fields: [string, string, string, string, string]; text: string }
  | { kind: 'rate'; value: number; unit: RateUnit; periodMs: number; text: string };

export type RateUnit = 'minute' | 'hour' | 'day';

const UNIT_MS: Record<RateUnit, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };
/** The longest rate: a year and a day. */
const MAX_RATE_MS = 366 * UNIT_MS.day;

const FIELDS = [
  { name: 'minute', min: 0, max: 59, names: [] as string[] },
  { name: 'hour', min: 0, max: 23, names: [] as string[] },
  { name: 'day-of-month', min: 1, max: 31, names: [] as string[] },
  { name: 'month', min: 1, max: 12, names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] },
  // 0 and 7 are both Sunday, as in crontab.
  { name: 'day-of-week', min: 0, max: 7, names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] },
] as const;

export const EXPRESSION_RULE =
  '`cron(<minute> <hour> <day-of-month> <month> <day-of-week>)` (five fields of numbers, `*`, `,`, `-`, `/`, and JAN-DEC or SUN-SAT; day-of-week 0-7, 0 and 7 Sunday; day-of-month and day-of-week cannot both be restricted) or `rate(<n> minute|minutes|hour|hours|day|days)` (the singular unit exactly when n is 1)';

/** Why an expression is refused: the message of the 422 naming `/expression`. */
export class ExpressionError extends Error {
  override name = 'ExpressionError';
}

/** Parses and checks an expression; throws ExpressionError saying what is wrong. Its `text` is the canonical form (single spaces). */
export function parseExpression(input: string): Expression {
  const text = input.trim();
  const rate = /^rate\(\s*(\d+)\s+([a-z]+)\s*\)$/.exec(text);
  if (rate) return parseRate(Number(rate[1]), rate[2]!);
  const cron = /^cron\((.*)\)$/.exec(text);
  if (cron) return parseCron(cron[1]!.trim());
  throw new ExpressionError(`must be ${EXPRESSION_RULE}`);
}

function parseRate(value: number, word: string): Expression {
  const unit = word.replace(/s$/, '') as RateUnit;
  if (!(unit in UNIT_MS)) throw new ExpressionError(`has an unknown rate unit "${word}": use minute(s), hour(s) or day(s)`);
  if (!Number.isSafeInteger(value) || value < 1) throw new ExpressionError('must have a rate of at least 1 (at most once a minute)');
  if (value === 1 && word !== unit) throw new ExpressionError(`must say "rate(1 ${unit})": the singular unit for 1`);
  if (value > 1 && word === unit) throw new ExpressionError(`must say "rate(${value} ${unit}s)": the plural unit for more than 1`);
  const periodMs = value * UNIT_MS[unit];
  if (periodMs > MAX_RATE_MS) throw new ExpressionError('must have a rate of at most 366 days');
  return { kind: 'rate', value, unit, periodMs, text: `rate(${value} ${value === 1 ? unit : `${unit}s`})` };
}

function parseCron(body: string): Expression {
  const parts = body.split(/\s+/);
  if (parts.length !== 5)
    throw new ExpressionError(`must have exactly five cron fields (minute hour day-of-month month day-of-week); it has ${body ? parts.length : 0}`);
  const fields = parts.map((p) => p.toUpperCase()) as [string, string, string, string, string];
  for (const [i, field] of fields.entries()) checkField(field, FIELDS[i]!);
  // EventBridge Scheduler's cron takes one of the two day fields only (the other `?`), and crontab would OR them: refused, not guessed.
  if (fields[2] !== '*' && fields[4] !== '*') {
    throw new ExpressionError(
      'restricts both day-of-month and day-of-week: restrict only one of them and leave the other `*` (crontab would fire on either, EventBridge Scheduler accepts only one)',
    );
  }
  return { kind: 'cron', fields, text: `cron(${fields.join(' ')})` };
}

/** One field: a comma list of `*`, `*\/step`, `a`, `a-b`, `a-b/step`, with numbers in range or the field's names. */
function checkField(field: string, spec: (typeof FIELDS)[number]): void {
  const refuse = (why: string) => {
    throw new ExpressionError(`has an invalid ${spec.name} field "${field}": ${why}`);
  };
  const value = (token: string): number => {
    const named = (spec.names as readonly string[]).indexOf(token);
    if (named >= 0) return named + (spec.name === 'month' ? 1 : 0);
    if (!/^\d+$/.test(token)) refuse(`"${token}" is not a number${spec.names.length ? ' or a name' : ''}`);
    const n = Number(token);
    if (n < spec.min || n > spec.max) refuse(`${n} is outside ${spec.min}-${spec.max}`);
    return n;
  };
  if (field === '') refuse('it is empty');
  for (const item of field.split(',')) {
    const [range, step, extra] = item.split('/');
    if (extra !== undefined) refuse('more than one "/"');
    if (step !== undefined && (!/^\d+$/.test(step) || Number(step) < 1)) refuse(`the step "${step}" is not a positive number`);
    if (range === '*') continue;
    const [from, to, more] = (range ?? '').split('-');
    if (more !== undefined) refuse(`"${range}" is not a range a-b`);
    const start = value(from ?? '');
    if (to !== undefined && value(to) < start) refuse(`the range "${range}" runs backwards`);
    if (to === undefined && step !== undefined) refuse(`a step needs "*" or a range before it, not "${range}"`);
  }
}

/** Whether `timezone` is an IANA time zone name this runtime knows (`UTC` included; offsets such as `+01:00` are not names). */
export function isTimeZone(timezone: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(timezone)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/**
 * The first firing of `expression` strictly after `after`. A cron reads its
 * fields as wall-clock time in `timezone`: a time that daylight saving skips
 * fires at the first minute after the gap, a time it repeats fires once (the
 * first). A rate fires every period from `anchor` (when the schedule's
 * timing was last set), whatever the time zone.
 */
export function nextFireAt(expression: Expression | string, timezone: string, after: Date, anchor: Date = new Date(0)): Date {
  const parsed = typeof expression === 'string' ? parseExpression(expression) : expression;
  if (parsed.kind === 'rate') {
    const periods = Math.floor((after.getTime() - anchor.getTime()) / parsed.periodMs) + 1;
    return new Date(anchor.getTime() + Math.max(1, periods) * parsed.periodMs);
  }
  const cron = new Cron(parsed.fields.join(' '), { timezone, paused: true, mode: '5-part' });
  const next = cron.nextRun(after);
  if (!next) throw new ExpressionError(`${parsed.text} never fires`);
  return next;
}

/** One text per instant (`2026-11-27T10:00:00.000Z`), whatever precision or offset it was written with: a firing's key. Undefined when `text` is no time. */
export function canonicalInstant(text: string): string | undefined {
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}
