import assert from 'node:assert/strict';
import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
  UpdateScheduleCommand,
  ValidationException,
} from '@aws-sdk/client-scheduler';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, test } from 'vitest';
import { eventBridgeExpression, eventBridgeTimer, SCHEDULER_VARIABLES } from '#schedules/eventbridge.js';
import { scheduleTimer, tableOnlyTimer } from '#schedules/timer.js';

// Every SchedulerClient, the one eventbridge.ts builds on first use included.
const scheduler = mockClient(SchedulerClient);
const $metadata = {};
const notFound = () => new ResourceNotFoundException({ message: 'Schedule sch_1 does not exist.', Message: 'Schedule sch_1 does not exist.', $metadata });

const ENV = {
  [SCHEDULER_VARIABLES.group]: 'WorkflowService-ScheduleGroup-58ED22C0',
  [SCHEDULER_VARIABLES.target]: 'arn:aws:sqs:eu-west-1:123456789012:WorkflowService-schedule-firings',
  [SCHEDULER_VARIABLES.role]: 'arn:aws:iam::123456789012:role/WorkflowService-SchedulerRole',
  [SCHEDULER_VARIABLES.deadLetter]: 'arn:aws:sqs:eu-west-1:123456789012:WorkflowService-schedule-firings-dlq',
  AWS_REGION: 'eu-west-1',
};
const SCHEDULE = { id: 'sch_0m3k2x9a1AbCdEfGh-_IjKlMnOp', expression: 'cron(30 9 * * 1-5)', timezone: 'Europe/Berlin', enabled: true };

/** The one request a put sends, with every field. */
const EXPECTED = {
  Name: SCHEDULE.id,
  GroupName: ENV.SCHEDULER_GROUP_NAME,
  ScheduleExpression: 'cron(30 9 ? * MON-FRI *)',
  ScheduleExpressionTimezone: 'Europe/Berlin',
  State: 'ENABLED',
  FlexibleTimeWindow: { Mode: 'OFF' },
  Target: {
    Arn: ENV.SCHEDULER_TARGET_ARN,
    RoleArn: ENV.SCHEDULER_ROLE_ARN,
    Input: `{"schedule_id":"${SCHEDULE.id}","scheduled_at":"<aws.scheduler.scheduled-time>"}`,
    RetryPolicy: { MaximumEventAgeInSeconds: 3600, MaximumRetryAttempts: 10 },
    DeadLetterConfig: { Arn: ENV.SCHEDULER_DEAD_LETTER_ARN },
  },
};

const sent = () => scheduler.calls().map((call) => [call.args[0].constructor.name, call.args[0].input]);

describe('eventBridgeTimer (EventBridge Scheduler through the production client)', () => {
  beforeEach(() => scheduler.reset());
  afterAll(() => scheduler.restore());

  test('put of an existing schedule updates it with the whole schedule: group, expression, time zone, window off, the firing message to the queue', async () => {
    scheduler.on(UpdateScheduleCommand).resolves({ ScheduleArn: 'arn' });

    await eventBridgeTimer(ENV).put(SCHEDULE);

    assert.deepEqual(sent(), [['UpdateScheduleCommand', EXPECTED]]);
    const message = JSON.parse(EXPECTED.Target.Input);
    assert.deepEqual(Object.keys(message), ['schedule_id', 'scheduled_at'], 'what the schedule-firings worker reads');
  });

  test('put of an absent schedule creates it after the update finds none; a disabled one is created DISABLED', async () => {
    scheduler.on(UpdateScheduleCommand).rejects(notFound());
    scheduler.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn' });

    await eventBridgeTimer(ENV).put({ ...SCHEDULE, enabled: false });

    const disabled = { ...EXPECTED, State: 'DISABLED' };
    assert.deepEqual(sent(), [
      ['UpdateScheduleCommand', disabled],
      ['CreateScheduleCommand', disabled],
    ]);
  });

  test('put racing another put: the create finds it made since, and updates it to what this put says', async () => {
    scheduler.on(UpdateScheduleCommand).rejectsOnce(notFound()).resolves({ ScheduleArn: 'arn' });
    scheduler.on(CreateScheduleCommand).rejects(new ConflictException({ message: 'Schedule already exists.', Message: 'Schedule already exists.', $metadata }));

    await eventBridgeTimer(ENV).put(SCHEDULE);

    assert.deepEqual(
      sent().map(([name]) => name),
      ['UpdateScheduleCommand', 'CreateScheduleCommand', 'UpdateScheduleCommand'],
    );
    assert.deepEqual(scheduler.commandCalls(UpdateScheduleCommand)[1]!.args[0].input, EXPECTED);
  });

  test('any other refusal is the caller’s error, not a create', async () => {
    scheduler
      .on(UpdateScheduleCommand)
      .rejects(new ValidationException({ message: 'Invalid Schedule Expression', Message: 'Invalid Schedule Expression', $metadata }));

    await assert.rejects(eventBridgeTimer(ENV).put(SCHEDULE), /Invalid Schedule Expression/);
    assert.equal(scheduler.commandCalls(CreateScheduleCommand).length, 0);
  });

  test('without the dead-letter variable no dead-letter config; a rate passes with EventBridge’s unit', async () => {
    scheduler.on(UpdateScheduleCommand).resolves({});
    const { SCHEDULER_DEAD_LETTER_ARN: _, ...env } = ENV;

    await eventBridgeTimer(env).put({ ...SCHEDULE, expression: 'rate(15 minutes)', timezone: 'UTC' });

    const input = scheduler.commandCalls(UpdateScheduleCommand)[0]!.args[0].input;
    assert.equal(input.ScheduleExpression, 'rate(15 minutes)');
    assert.equal(input.ScheduleExpressionTimezone, 'UTC');
    assert.equal(input.Target?.DeadLetterConfig, undefined);
  });

  test('remove deletes the schedule from the group; an absent one is done; other errors are thrown', async () => {
    scheduler.on(DeleteScheduleCommand).resolvesOnce({}).rejectsOnce(notFound()).rejects(new Error('ThrottlingException'));
    const timer = eventBridgeTimer(ENV);

    await timer.remove(SCHEDULE.id);
    await timer.remove(SCHEDULE.id);
    await assert.rejects(timer.remove(SCHEDULE.id), /ThrottlingException/);

    assert.deepEqual(
      scheduler.commandCalls(DeleteScheduleCommand).map((c) => c.args[0].input),
      Array(3).fill({ Name: SCHEDULE.id, GroupName: ENV.SCHEDULER_GROUP_NAME }),
    );
  });

  test('a missing setting or an id EventBridge cannot take as a name is an error before any call', async () => {
    const { SCHEDULER_ROLE_ARN: _, ...noRole } = ENV;
    await assert.rejects(eventBridgeTimer(noRole).put(SCHEDULE), /SCHEDULER_ROLE_ARN is not set/);
    await assert.rejects(eventBridgeTimer(ENV).put({ ...SCHEDULE, id: 'sch/1' }), /cannot name an EventBridge schedule/);
    await assert.rejects(eventBridgeTimer(ENV).remove('x'.repeat(65)), /cannot name an EventBridge schedule/);
    assert.equal(scheduler.calls().length, 0);
  });

  test('scheduleTimer: EventBridge where the stack names a group, the table alone where it is unset or blank (npm start, start:synth)', async () => {
    scheduler.on(DeleteScheduleCommand).resolves({});
    await (await scheduleTimer(ENV)).remove(SCHEDULE.id);
    assert.equal(scheduler.commandCalls(DeleteScheduleCommand).length, 1);

    assert.equal(await scheduleTimer({}), tableOnlyTimer);
    assert.equal(await scheduleTimer({ ...ENV, [SCHEDULER_VARIABLES.group]: '' }), tableOnlyTimer);
  });
});

describe('eventBridgeExpression: our five-field cron and rate as EventBridge Scheduler’s', () => {
  const cases: [string, string, string][] = [
    ['every day at 09:00', 'cron(0 9 * * *)', 'cron(0 9 * * ? *)'],
    ['every 15 minutes', 'cron(*/15 * * * *)', 'cron(0/15 * * * ? *)'],
    ['every other day of the month', 'cron(0 0 */2 * *)', 'cron(0 0 1/2 * ? *)'],
    ['quarterly by month step', 'cron(0 0 1 */3 *)', 'cron(0 0 1 1/3 ? *)'],
    ['weekdays by number', 'cron(0 9 * * 1-5)', 'cron(0 9 ? * MON-FRI *)'],
    ['weekdays by name', 'cron(0 9 * * mon-fri)', 'cron(0 9 ? * MON-FRI *)'],
    ['Sunday as 0', 'cron(0 9 * * 0)', 'cron(0 9 ? * SUN *)'],
    ['Sunday as 7', 'cron(0 9 * * 7)', 'cron(0 9 ? * SUN *)'],
    ['Saturday (standard 6, EventBridge 7)', 'cron(0 9 * * 6)', 'cron(0 9 ? * SAT *)'],
    ['a list of days', 'cron(0 9 * * 1,3,5)', 'cron(0 9 ? * MON,WED,FRI *)'],
    ['a range through 7', 'cron(0 9 * * 5-7)', 'cron(0 9 ? * SUN,FRI,SAT *)'],
    ['a day-of-week step, which EventBridge has not there', 'cron(0 9 * * */2)', 'cron(0 9 ? * SUN,TUE,THU,SAT *)'],
    ['a stepped day range', 'cron(0 9 * * 1-5/2)', 'cron(0 9 ? * MON,WED,FRI *)'],
    ['every day of the week spelled out', 'cron(0 9 * * 0-6)', 'cron(0 9 ? * * *)'],
    ['days of the month with month names', 'cron(0 12 1,15 jan,Jul *)', 'cron(0 12 1,15 1,7 ? *)'],
    ['month range by name', 'cron(0 0 1 MAR-NOV *)', 'cron(0 0 1 3-11 ? *)'],
    ['stepped ranges become lists', 'cron(10-40/10 8-18/4 * * *)', 'cron(10,20,30,40 8,12,16 * * ? *)'],
    ['a step to the field’s end', 'cron(5-59/20 * * * *)', 'cron(5/20 * * * ? *)'],
    ['leading zeros', 'cron(05 07 * * *)', 'cron(5 7 * * ? *)'],
    ['rate, one minute', 'rate(1 minute)', 'rate(1 minute)'],
    ['rate, hours', 'rate(2 hours)', 'rate(2 hours)'],
    ['rate, days', 'rate(7 days)', 'rate(7 days)'],
    ['rate unit made singular for 1', 'rate(1 hours)', 'rate(1 hour)'],
    ['rate unit made plural above 1', 'rate(3 day)', 'rate(3 days)'],
  ];
  for (const [what, ours, theirs] of cases) {
    test(`${what}: ${ours} → ${theirs}`, () => assert.equal(eventBridgeExpression(ours), theirs));
  }

  test('what EventBridge cannot express, or is no expression, is refused', () => {
    for (const [expression, why] of [
      ['cron(0 9 1 * 1)', /both restricted/],
      ['cron(0 9 * *)', /Not a schedule expression/],
      ['cron(0 9 * * * *)', /Not a schedule expression/],
      ['cron(60 * * * *)', /minute 60 is outside 0-59/],
      ['cron(0 0 0 * *)', /day-of-month 0 is outside 1-31/],
      ['cron(0 9 * * 6-1)', /runs backwards/],
      ['cron(0 9 * * L)', /Not a day-of-week value/],
      ['cron(*/0 * * * *)', /Not a minute step/],
      ['every day', /Not a schedule expression/],
    ] as const) {
      assert.throws(() => eventBridgeExpression(expression), why, expression);
    }
  });
});
