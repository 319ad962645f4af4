import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { canonicalInstant, ExpressionError, isTimeZone, nextFireAt, parseExpression } from '#schedules/expressions.js';

const next = (expression: string, timezone: string, after: string, anchor?: string) =>
  nextFireAt(expression, timezone, new Date(after), anchor ? new Date(anchor) : undefined).toISOString();

describe('schedule expressions', () => {
  test('cron(30 2 * * *) in Europe/Berlin: the skipped 02:30 of 28 March 2027 fires at 03:00 CEST, the repeated one of 31 October once', () => {
    assert.equal(next('cron(30 2 * * *)', 'Europe/Berlin', '2027-03-27T12:00:00Z'), '2027-03-28T01:00:00.000Z');
    assert.equal(next('cron(30 2 * * *)', 'Europe/Berlin', '2027-03-28T01:00:00Z'), '2027-03-29T00:30:00.000Z');
    assert.equal(next('cron(30 2 * * *)', 'Europe/Berlin', '2027-10-30T12:00:00Z'), '2027-10-31T00:30:00.000Z');
    assert.equal(next('cron(30 2 * * *)', 'Europe/Berlin', '2027-10-31T00:30:00Z'), '2027-11-01T01:30:00.000Z');
  });

  test('cron(0 9 * * *) in Europe/Berlin stays 09:00 local: 08:00Z in winter, 07:00Z in summer, across both changes of 2027', () => {
    assert.equal(next('cron(0 9 * * *)', 'Europe/Berlin', '2027-03-27T08:00:00Z'), '2027-03-28T07:00:00.000Z');
    assert.equal(next('cron(0 9 * * *)', 'Europe/Berlin', '2027-03-26T09:00:00Z'), '2027-03-27T08:00:00.000Z');
    assert.equal(next('cron(0 9 * * *)', 'Europe/Berlin', '2027-10-30T08:00:00Z'), '2027-10-31T08:00:00.000Z');
    assert.equal(next('cron(0 9 * * *)', 'Europe/Berlin', '2027-10-29T12:00:00Z'), '2027-10-30T07:00:00.000Z');
    assert.equal(next('cron(0 9 * * *)', 'UTC', '2027-07-01T09:00:00Z'), '2027-07-02T09:00:00.000Z');
  });

  test('day names, month names, ranges, lists and steps; 0 and 7 are both Sunday', () => {
    assert.equal(next('cron(0 9 * * MON-FRI)', 'UTC', '2027-01-01T10:00:00Z'), '2027-01-04T09:00:00.000Z');
    assert.equal(next('cron(0 9 * * 7)', 'UTC', '2027-01-01T00:00:00Z'), '2027-01-03T09:00:00.000Z');
    assert.equal(next('cron(0 9 * * 0)', 'UTC', '2027-01-01T00:00:00Z'), '2027-01-03T09:00:00.000Z');
    assert.equal(next('cron(*/15 9-17 * jan,jul *)', 'UTC', '2027-01-01T09:01:00Z'), '2027-01-01T09:15:00.000Z');
    assert.equal(next('cron(0 0 1 * *)', 'America/New_York', '2027-01-01T06:00:00Z'), '2027-02-01T05:00:00.000Z');
  });

  test('the canonical form: single spaces, names upper case, the rate unit as written when right', () => {
    assert.equal(parseExpression('  cron( 0   9 * * mon-fri )').text, 'cron(0 9 * * MON-FRI)');
    assert.equal(parseExpression('rate(1 minute)').text, 'rate(1 minute)');
    assert.equal(parseExpression('rate(5 minutes)').text, 'rate(5 minutes)');
    assert.equal(parseExpression('rate(2 days)').text, 'rate(2 days)');
  });

  test('a rate fires every period from its anchor, whatever the time zone; strictly after `after`', () => {
    const anchor = '2027-01-01T10:00:30.000Z';
    assert.equal(next('rate(1 minute)', 'Europe/Berlin', anchor, anchor), '2027-01-01T10:01:30.000Z');
    assert.equal(next('rate(1 minute)', 'UTC', '2027-01-01T10:01:30.000Z', anchor), '2027-01-01T10:02:30.000Z');
    assert.equal(next('rate(1 minute)', 'UTC', '2027-01-01T10:05:00.000Z', anchor), '2027-01-01T10:05:30.000Z');
    assert.equal(next('rate(2 hours)', 'UTC', '2027-01-01T13:00:00.000Z', anchor), '2027-01-01T14:00:30.000Z');
    // Before the anchor (a clock behind): the first period after it.
    assert.equal(next('rate(1 day)', 'UTC', '2026-12-01T00:00:00.000Z', anchor), '2027-01-02T10:00:30.000Z');
  });

  const refused: Array<[string, RegExp]> = [
    ['cron(0 9 * *)', /exactly five cron fields/],
    ['cron(0 0 9 * * *)', /exactly five cron fields/],
    ['cron(0 9 1 * MON)', /restricts both day-of-month and day-of-week/],
    ['cron(0 9 ? * MON)', /day-of-month field "\?"/],
    ['cron(60 9 * * *)', /minute field "60": 60 is outside 0-59/],
    ['cron(0 24 * * *)', /hour field/],
    ['cron(0 9 0 * *)', /day-of-month field "0"/],
    ['cron(0 9 * 13 *)', /month field "13"/],
    ['cron(0 9 * * 8)', /day-of-week field "8"/],
    ['cron(0 9 L * *)', /day-of-month field "L"/],
    ['cron(0 9 * * MON#2)', /day-of-week field/],
    ['cron(0 17-9 * * *)', /runs backwards/],
    ['cron(5/10 * * * *)', /a step needs "\*" or a range/],
    ['cron(*/0 * * * *)', /step "0"/],
    ['cron(@daily)', /exactly five cron fields/],
    ['rate(0 minutes)', /at least 1/],
    ['rate(30 seconds)', /unknown rate unit "seconds"/],
    ['rate(1 minutes)', /singular unit/],
    ['rate(5 minute)', /plural unit/],
    ['rate(367 days)', /at most 366 days/],
    ['rate(1.5 hours)', /must be/],
    ['every minute', /must be/],
    ['', /must be/],
  ];
  test.each(refused)('%s is refused, saying why', (expression, why) => {
    assert.throws(
      () => parseExpression(expression),
      (e) => e instanceof ExpressionError && why.test(e.message),
    );
  });

  test('time zones: IANA names, UTC; not offsets, abbreviations of nothing, or unknown names', () => {
    for (const tz of ['UTC', 'Europe/Berlin', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5']) assert.equal(isTimeZone(tz), true, tz);
    for (const tz of ['+01:00', 'Mars/Base', '', 'Europe/', 'Europe/Berlin ']) assert.equal(isTimeZone(tz), false, tz);
  });

  test('one instant, one canonical text: EventBridge’s second precision and an offset give the key the loop gives', () => {
    assert.equal(canonicalInstant('2026-11-27T10:00:00Z'), '2026-11-27T10:00:00.000Z');
    assert.equal(canonicalInstant('2026-11-27T11:00:00+01:00'), '2026-11-27T10:00:00.000Z');
    assert.equal(canonicalInstant('2026-11-27T10:00:00.000Z'), '2026-11-27T10:00:00.000Z');
    assert.equal(canonicalInstant('yesterday'), undefined);
  });
});
