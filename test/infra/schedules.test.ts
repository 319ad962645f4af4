import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { afterAll, inject, test } from 'vitest';
import { QUEUES } from '#app/queues.js';
import { FEATURE_LAYOUT, ROUTES } from '#app/routes.js';
import { SCHEDULER_VARIABLES } from '#schedules/eventbridge.js';
import { SCHEDULE_FIRINGS_QUEUE } from '#schedules/queues.js';
import { WorkflowServiceStack } from '../../infra/stack.js';
import { synthesizeServiceApp } from '../../infra/synthesize.js';
import { type AssemblyStack, type Resource, readStacks, resourcesOfType, roleOf, roleStatements } from './assembly.js';

// The real app as `cdk synth` builds it (test/infra/global-setup.ts).
const stacks = readStacks(inject('assemblyDir'));
const root = stacks[0]!;
// The routes and the queue workers that keep schedules, by the description the stack gives their functions.
const keepers = [
  ...ROUTES.filter((r) => r.schedules).map((r) => `${r.method} ${r.path}`),
  ...QUEUES.filter((q) => q.schedules).map((q) => `Worker for queue ${q.name}`),
];
const SCHEDULING = ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule', 'scheduler:GetSchedule', 'scheduler:UpdateSchedule'];

const only = <T>(items: T[], what: string): T => {
  assert.equal(items.length, 1, `one ${what}`);
  return items[0]!;
};
const group = () => only(resourcesOfType(root, 'AWS::Scheduler::ScheduleGroup'), 'schedule group');
const schedulerRole = () =>
  only(
    resourcesOfType(root, 'AWS::IAM::Role').filter(([, r]) => JSON.stringify(r.Properties?.AssumeRolePolicyDocument).includes('scheduler.amazonaws.com')),
    'role EventBridge Scheduler assumes',
  );
const queueId = (name: string) =>
  only(
    resourcesOfType(root, 'AWS::SQS::Queue').filter(([, r]) => r.Properties?.QueueName === `WorkflowService-${name}`),
    name,
  )[0];

/** What a value of a nested template stands for in the root: a parameter the root passes, or the value itself. */
function inRoot(stack: AssemblyStack, value: unknown): unknown {
  const ref = (value as { Ref?: string } | undefined)?.Ref;
  if (stack === root || ref === undefined || ref.startsWith('AWS::')) return value;
  const [, nested] = Object.entries(root.template.Resources).find(
    ([id, r]) => r.Type === 'AWS::CloudFormation::Stack' && id.startsWith(`${stack.name}NestedStack`),
  )!;
  return nested.Properties?.Parameters?.[ref];
}

const everyFunction = (): { stack: AssemblyStack; id: string; fn: Resource }[] =>
  stacks.flatMap((stack) => resourcesOfType(stack, 'AWS::Lambda::Function').map(([id, fn]) => ({ stack, id, fn })));

test('the stack has the schedules feature: its firings queue and at least one route that keeps schedules', () => {
  assert.ok(
    FEATURE_LAYOUT.some((f) => f.queues.some((q) => q.name === SCHEDULE_FIRINGS_QUEUE)),
    `a feature has the ${SCHEDULE_FIRINGS_QUEUE} queue`,
  );
  assert.ok(keepers.length > 1, 'some contract says schedules: true, and the firings worker keeps schedules');
  assert.ok(keepers.includes(`Worker for queue ${SCHEDULE_FIRINGS_QUEUE}`), 'the firings worker disables a schedule whose target is gone');
});

test('one schedule group in the root, deleted with the stack, and the role EventBridge Scheduler sends with: it trusts scheduler.amazonaws.com of this account only and may only send to the firings queue and its dead-letter queue', () => {
  const [, scheduleGroup] = group();
  assert.match(String(scheduleGroup.Properties?.Name), /^[0-9a-zA-Z\-_.]{1,64}$/, 'a literal name EventBridge takes');
  assert.equal(scheduleGroup.DeletionPolicy, 'Delete');

  const [roleId, role] = schedulerRole();
  assert.deepEqual(role.Properties?.AssumeRolePolicyDocument.Statement, [
    {
      Action: 'sts:AssumeRole',
      Effect: 'Allow',
      Principal: { Service: 'scheduler.amazonaws.com' },
      Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
    },
  ]);
  assert.equal(role.Properties?.ManagedPolicyArns, undefined);
  const firings = queueId(SCHEDULE_FIRINGS_QUEUE);
  const deadLetters = queueId(`${SCHEDULE_FIRINGS_QUEUE}-dlq`);
  const statements = roleStatements(root, roleId);
  assert.deepEqual(
    statements.map((s) => [s.Action, s.Condition]),
    [['sqs:SendMessage', undefined]],
  );
  assert.deepEqual(
    new Set([statements[0]!.Resource].flat().map((r) => JSON.stringify(r))),
    new Set([firings, deadLetters].map((id) => JSON.stringify({ 'Fn::GetAtt': [id, 'Arn'] }))),
  );
});

test('exactly the functions whose contract keeps schedules may create, update, delete and read the group’s schedules and pass that role to EventBridge Scheduler, and get its variables', () => {
  const [, scheduleGroup] = group();
  const groupName = scheduleGroup.Properties?.Name as string;
  const [roleId] = schedulerRole();
  const descriptions = new Set(keepers);
  let found = 0;
  for (const { stack, fn } of everyFunction()) {
    const keeps = descriptions.has(String(fn.Properties?.Description));
    const statements = roleStatements(stack, roleOf(fn));
    const scheduling = statements.filter((s) => [s.Action].flat().some((a) => a.startsWith('scheduler:')));
    const passing = statements.filter((s) => [s.Action].flat().includes('iam:PassRole'));
    const env = (fn.Properties?.Environment?.Variables ?? {}) as Record<string, unknown>;
    const name = String(fn.Properties?.Description);
    if (!keeps) {
      assert.deepEqual([scheduling, passing], [[], []], `${name} keeps no schedule`);
      for (const variable of Object.values(SCHEDULER_VARIABLES)) assert.equal(env[variable], undefined, `${name}: ${variable}`);
      continue;
    }
    found++;
    assert.deepEqual(
      scheduling.map((s) => [[s.Action].flat().sort(), s.Resource, s.Condition]),
      [
        [
          SCHEDULING,
          {
            'Fn::Join': [
              '',
              ['arn:', { Ref: 'AWS::Partition' }, ':scheduler:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:schedule/${groupName}/*`],
            ],
          },
          undefined,
        ],
      ],
      `${name}: the group's schedules only`,
    );
    assert.equal(passing.length, 1, `${name} passes one role`);
    assert.equal(passing[0]!.Action, 'iam:PassRole');
    assert.deepEqual(passing[0]!.Condition, { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } });
    assert.deepEqual(inRoot(stack, passing[0]!.Resource), { 'Fn::GetAtt': [roleId, 'Arn'] }, `${name} passes the scheduler role only`);

    assert.equal(env[SCHEDULER_VARIABLES.group], groupName);
    assert.deepEqual(inRoot(stack, env[SCHEDULER_VARIABLES.role]), { 'Fn::GetAtt': [roleId, 'Arn'] });
    assert.deepEqual(inRoot(stack, env[SCHEDULER_VARIABLES.target]), { 'Fn::GetAtt': [queueId(SCHEDULE_FIRINGS_QUEUE), 'Arn'] });
    assert.deepEqual(inRoot(stack, env[SCHEDULER_VARIABLES.deadLetter]), { 'Fn::GetAtt': [queueId(`${SCHEDULE_FIRINGS_QUEUE}-dlq`), 'Arn'] });
  }
  assert.equal(found, keepers.length, 'a function per route or worker that keeps schedules');
  // No role of the root (the scheduler's own included) may touch schedules or pass roles.
  for (const [id] of resourcesOfType(root, 'AWS::IAM::Role')) {
    const actions = roleStatements(root, id).flatMap((s) => [s.Action].flat());
    assert.ok(!actions.some((a) => a.startsWith('scheduler:') || a === 'iam:PassRole'), `root role ${id}`);
  }
});

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const NO_BUNDLING = { 'aws:cdk:bundling-stacks': [] };

test('synthesized for SAM local (-c dynamodbEndpoint): the functions that keep schedules get the group variable blank, so they keep the table only', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wfs-sam-'));
  dirs.push(dir);
  const local = readStacks(synthesizeServiceApp(dir, { ...NO_BUNDLING, dynamodbEndpoint: 'http://127.0.0.1:8000' }));
  const keeping = local.flatMap((stack) =>
    resourcesOfType(stack, 'AWS::Lambda::Function')
      .map(([, fn]) => (fn.Properties?.Environment?.Variables ?? {}) as Record<string, unknown>)
      .filter((env) => SCHEDULER_VARIABLES.group in env),
  );
  assert.equal(keeping.length, keepers.length);
  for (const env of keeping) assert.equal(env[SCHEDULER_VARIABLES.group], '');
  assert.equal(resourcesOfType(local[0]!, 'AWS::Scheduler::ScheduleGroup').length, 1, 'the template still deploys the group');
});

test('a route that keeps schedules in an app without the firings queue fails synthesis, naming it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wfs-nofirings-'));
  dirs.push(dir);
  const app = new App({ outdir: dir, context: NO_BUNDLING });
  const route = { id: 'Keeper', method: 'POST' as const, path: '/v1/keep', entry: 'functions/health.ts', table: 'none' as const, schedules: true };
  assert.throws(
    () => new WorkflowServiceStack(app, 'WorkflowService', { features: [{ name: 'keeper', routes: [route], queues: [] }] }),
    /Keeper keeps schedules, but the app has no schedule-firings queue/,
  );
});
