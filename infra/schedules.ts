import { Aws, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { SCHEDULER_VARIABLES } from '#schedules/eventbridge.js';
import { SCHEDULE_FIRINGS_QUEUE } from '#schedules/queues.js';

/** What the functions that keep schedules need of EventBridge Scheduler (SharedResources.scheduler). */
export interface SchedulerResources {
  /** The stack's schedule group: a literal name, so the functions' grant names no token of another stack. */
  readonly groupName: string;
  /** The role EventBridge Scheduler sends with: it may send to the firings queue and its dead-letter queue only. */
  readonly role: iam.IRole;
  readonly targetArn: string;
  readonly deadLetterArn: string;
  /**
   * The template runs under SAM local (`localEndpoints`): the functions get
   * SCHEDULER_GROUP_NAME blank, so they keep the table only instead of
   * calling EventBridge Scheduler in whatever account the machine's
   * credentials name; the variable is declared, so `--env-vars` can still set it.
   */
  readonly localTemplate?: boolean;
}

/**
 * EventBridge Scheduler for the stack: one schedule group, in which the
 * schedules feature creates a schedule per schedule (lib/schedules/eventbridge.ts),
 * and the role those schedules deliver with. Deleting the stack deletes the
 * group and with it every schedule, which would otherwise go on sending to
 * a deleted queue.
 */
export function scheduleFirings(
  scope: Construct,
  firings: { readonly queue: sqs.IQueue; readonly dlq: sqs.IQueue },
  options: { localTemplate?: boolean } = {},
): SchedulerResources {
  const group = new scheduler.ScheduleGroup(scope, 'ScheduleGroup', { removalPolicy: RemovalPolicy.DESTROY });
  const role = new iam.Role(scope, 'SchedulerRole', {
    assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', { conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } } }),
    description: `EventBridge Scheduler sends each schedule's firings to the ${SCHEDULE_FIRINGS_QUEUE} queue with this role`,
  });
  // Sending only: the firings, and to the dead-letter queue a firing it could not deliver (its body the firing's), which the dead-letter worker records on the schedule.
  role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [firings.queue.queueArn, firings.dlq.queueArn] }));
  return {
    groupName: group.scheduleGroupName,
    role,
    targetArn: firings.queue.queueArn,
    deadLetterArn: firings.dlq.queueArn,
    localTemplate: options.localTemplate,
  };
}

/** The variables of a function that keeps schedules (lib/schedules/eventbridge.ts reads them). */
export const schedulerEnvironment = (resources: SchedulerResources): Record<string, string> => ({
  [SCHEDULER_VARIABLES.group]: resources.localTemplate ? '' : resources.groupName,
  [SCHEDULER_VARIABLES.target]: resources.targetArn,
  [SCHEDULER_VARIABLES.role]: resources.role.roleArn,
  [SCHEDULER_VARIABLES.deadLetter]: resources.deadLetterArn,
});

/** The ARN pattern of the group's schedules, as IAM names them. */
const schedulesArn = (groupName: string): string => `arn:${Aws.PARTITION}:scheduler:${Aws.REGION}:${Aws.ACCOUNT_ID}:schedule/${groupName}/*`;

/**
 * What a function that keeps schedules may do: create, update, delete and
 * read the schedules of the stack's group only, and hand EventBridge
 * Scheduler the one role they deliver with.
 */
export function grantScheduling(role: iam.Role, resources: SchedulerResources): void {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule', 'scheduler:GetSchedule'],
      resources: [schedulesArn(resources.groupName)],
    }),
  );
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['iam:PassRole'],
      resources: [resources.role.roleArn],
      conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
    }),
  );
  Validations.of(role).acknowledge({
    id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/${resources.groupName}/*]`,
    reason: 'Schedules are created at run time, one per schedule of the API, named after its id: the wildcard covers the schedules of this stack’s group only.',
  });
}
