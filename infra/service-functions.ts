import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Aws, type CfnElement, Duration, Names, Stack, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { OPENAI_KEY_VARIABLES } from '#models/openai-key.js';
import type { TableAccess } from '#platform/http/contract.js';
import { SERVICE_KEY_VARIABLES } from '#platform/secrets/service-key.js';
import { keys } from '#platform/table/keys.js';
import { webBuild } from '../web/build.js';
import { BUNDLE, ESM_REQUIRE_BANNER, EXTERNAL_MODULES } from './bundling.js';
import { grantScheduling, type SchedulerResources, schedulerEnvironment } from './schedules.js';

/** Repository root: route and queue entries are relative to it. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** What every feature's functions stand on: the root stack's stateful resources and shared settings. */
export interface SharedResources {
  readonly table: dynamodb.ITable;
  /** Every queue: a function that sends may send to any of them. */
  readonly queues: readonly sqs.IQueue[];
  readonly serviceKey: secretsmanager.ISecret;
  /** The OpenAI-compatible provider's key, when the operator configured one. */
  readonly modelKey?: secretsmanager.ISecret;
  /** TABLE_NAME, QUEUE_PREFIX, the queue URLs, ...: every function's variables. */
  readonly environment: Readonly<Record<string, string>>;
  /** EventBridge Scheduler's group and role, when the app has the schedule firings queue. */
  readonly scheduler?: SchedulerResources;
}

/** One function: what it runs and exactly what it may do. Functions with the same access share one role. */
export interface FunctionSpec {
  readonly id: string;
  readonly entry: string;
  readonly description: string;
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
  readonly table: TableAccess;
  /** An authenticated route writes its account's rate log on every request, reads included. */
  readonly rateLimited?: boolean;
  readonly sends?: boolean;
  /** Derives webhook secrets: may read the service key. */
  readonly serviceKey?: boolean;
  /** Calls Amazon Bedrock and the OpenAI-compatible provider. */
  readonly invokesModels?: boolean;
  /** The queue its event source mapping reads. */
  readonly consumes?: sqs.IQueue;
  readonly environment?: Readonly<Record<string, string>>;
  /** Serves the console and the reference pages: their build goes into the bundle as `web/`. */
  readonly staticFiles?: boolean;
  /** Keeps the schedules' EventBridge Scheduler schedules (infra/schedules.ts). */
  readonly schedules?: boolean;
}

/** One compressed build of the pages per synthesis, shared by the functions that serve them. */
let pagesBuild: string | undefined;
const copyPages = (outputDir: string): string[] => {
  pagesBuild ??= webBuild({ compress: true });
  return [`mkdir -p "${outputDir}/web"`, `cp -R "${pagesBuild}/." "${outputDir}/web/"`];
};

/** The access a role is shared by: two functions with the same key may do exactly the same things. */
const accessKey = (spec: FunctionSpec, stack: Stack): string =>
  JSON.stringify([
    spec.table,
    Boolean(spec.rateLimited && spec.table !== 'readwrite'),
    Boolean(spec.sends),
    Boolean(spec.serviceKey),
    Boolean(spec.invokesModels),
    Boolean(spec.schedules),
    spec.consumes ? stack.resolve(spec.consumes.queueArn) : null,
  ]);

/**
 * Builds a stack's functions: each with its own log group (30 days), every
 * one bundled the same way (infra/bundling.ts), and one execution role per
 * distinct access, so a stack of twenty routes holds a handful of roles
 * rather than twenty roles and twenty policies, and no function may do more
 * than its contract states.
 */
export class ServiceFunctions {
  readonly all: NodejsFunction[] = [];
  private readonly roles = new Map<string, iam.Role>();

  constructor(
    private readonly scope: Construct,
    private readonly shared: SharedResources,
  ) {}

  create(spec: FunctionSpec): NodejsFunction {
    const logGroup = new logs.LogGroup(this.scope, `${spec.id}Logs`, { retention: logs.RetentionDays.ONE_MONTH });
    const role = this.roleFor(spec);
    logGroup.grantWrite(role);
    const fn = new NodejsFunction(this.scope, spec.id, {
      entry: isAbsolute(spec.entry) ? spec.entry : resolve(REPO_ROOT, spec.entry),
      handler: 'handler',
      description: spec.description.slice(0, 256),
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: spec.memoryMb,
      timeout: Duration.seconds(spec.timeoutSeconds),
      role,
      logGroup,
      projectRoot: REPO_ROOT,
      depsLockFilePath: resolve(REPO_ROOT, 'package-lock.json'),
      environment: {
        ...this.shared.environment,
        ...(spec.serviceKey ? { [SERVICE_KEY_VARIABLES.secretArn]: this.shared.serviceKey.secretArn } : {}),
        ...(spec.invokesModels && this.shared.modelKey ? { [OPENAI_KEY_VARIABLES.secretArn]: this.shared.modelKey.secretArn } : {}),
        ...(spec.schedules ? schedulerEnvironment(this.schedulerFor(spec)) : {}),
        ...spec.environment,
      },
      bundling: {
        minify: BUNDLE.minify,
        sourceMap: true,
        format: OutputFormat.ESM,
        target: BUNDLE.target,
        mainFields: [...BUNDLE.mainFields],
        banner: ESM_REQUIRE_BANNER,
        logLevel: LogLevel.WARNING,
        externalModules: EXTERNAL_MODULES,
        ...(spec.staticFiles
          ? { commandHooks: { beforeBundling: () => [], beforeInstall: () => [], afterBundling: (_input: string, output: string) => copyPages(output) } }
          : {}),
      },
    });
    Validations.of(fn).acknowledge({
      id: 'AwsSolutions-L1',
      reason: 'nodejs22.x is pinned on purpose: bundles are built for target node22 and the runtime is upgraded deliberately, together with the target.',
    });
    this.all.push(fn);
    return fn;
  }

  private roleFor(spec: FunctionSpec): iam.Role {
    const stack = Stack.of(this.scope);
    const key = accessKey(spec, stack);
    const existing = this.roles.get(key);
    if (existing) return existing;
    // Named after the first function that needs it; the description says who else shares it.
    const role = new iam.Role(this.scope, `${spec.id}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of the functions with the access of ${spec.id}`,
    });
    this.roles.set(key, role);
    const { table, queues, serviceKey, modelKey } = this.shared;
    if (spec.table === 'read') table.grantReadData(role);
    else if (spec.table === 'readwrite') table.grantReadWriteData(role);
    if (spec.rateLimited && spec.table !== 'readwrite') {
      // A read-only route still writes its account's rate log: that one action, on those items only.
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          actions: ['dynamodb:UpdateItem'],
          resources: [table.tableArn],
          conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${keys.rateLog('').pk}*`] } },
        }),
      );
    }
    if (spec.sends) for (const queue of queues) queue.grantSendMessages(role);
    if (spec.serviceKey) serviceKey.grantRead(role);
    if (spec.schedules) grantScheduling(role, this.schedulerFor(spec));
    if (spec.invokesModels) {
      modelKey?.grantRead(role);
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          // Converse and, for runs that stream their answer as `message.delta` events, ConverseStream.
          actions: ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'],
          resources: [`arn:${Aws.PARTITION}:bedrock:*::foundation-model/*`, `arn:${Aws.PARTITION}:bedrock:*:${Aws.ACCOUNT_ID}:inference-profile/*`],
        }),
      );
      const reason =
        'Agent nodes name their Bedrock model at run time (bedrock/<model id>), so the worker may invoke any foundation model or inference profile; nothing else.';
      for (const resource of ['arn:<AWS::Partition>:bedrock:*::foundation-model/*', 'arn:<AWS::Partition>:bedrock:*:<AWS::AccountId>:inference-profile/*']) {
        Validations.of(role).acknowledge({ id: `AwsSolutions-IAM5[Resource::${resource}]`, reason });
      }
    }
    if (spec.table !== 'none') this.acknowledgeIndexes(role, stack);
    return role;
  }

  private schedulerFor(spec: FunctionSpec): SchedulerResources {
    const { scheduler } = this.shared;
    if (!scheduler) throw new Error(`${spec.id} keeps schedules, but the app has no schedule-firings queue for EventBridge Scheduler to send to.`);
    return scheduler;
  }

  /** cdk-nag: the table grant includes `<table arn>/index/*`, this table's indexes only. */
  private acknowledgeIndexes(role: iam.Role, stack: Stack): void {
    const table = this.shared.table.node.defaultChild as CfnElement;
    // In a nested stack the table's ARN arrives as a parameter CDK names after the table; in its own stack it is the table's GetAtt.
    const token = Stack.of(table) === stack ? `${stack.resolve(table.logicalId)}.Arn` : `referenceto${Names.nodeUniqueId(table.node)}Arn`;
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${token}>/index/*]`,
      reason:
        'The DynamoDB grant includes the table’s indexes (`<table arn>/index/*`) so the handler can query the GSIs; the wildcard covers only this table’s indexes.',
    });
  }
}

/** The logical id of a construct's CloudFormation resource in its own stack. */
export const logicalIdOf = (construct: Construct): string => {
  const element = construct.node.defaultChild as CfnElement;
  return Stack.of(construct).resolve(element.logicalId) as string;
};
