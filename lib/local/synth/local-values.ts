/**
 * What `Ref` and `Fn::GetAtt` of a resource stand for when the template runs
 * locally: the table and queues of the emulators, ARNs in the local account
 * and region, the local gateway for the HTTP API and the distribution. A
 * resource type or attribute not listed has no local value (undefined).
 */
import type { Json } from './intrinsics.js';
import type { LocalBindings } from './model.js';

/** One resource of a template, as the local values need it. */
export interface ResourceInScope {
  logicalId: string;
  type: string;
  /** The name of the stack (nested or not) that holds the resource. */
  stackName: string;
  /** The resource's construct path without `/Resource`. */
  constructId: string;
  bindings: LocalBindings;
  /** A property of the resource, resolved. */
  property(name: string): Json | undefined;
  /** The logical id of a function of the assembly, by its ARN or name. */
  functionLogicalId(arnOrName: string): string | undefined;
}

type Local = (resource: ResourceInScope) => Json | undefined;

const arn = (r: ResourceInScope, service: string, resource: string): string => `arn:aws:${service}:${r.bindings.region}:${r.bindings.accountId}:${resource}`;
const globalArn = (r: ResourceInScope, service: string, resource: string): string => `arn:aws:${service}::${r.bindings.accountId}:${resource}`;

const stringProperty = (r: ResourceInScope, name: string): string | undefined => {
  const value = r.property(name);
  return typeof value === 'string' ? value : undefined;
};

/**
 * The name property, else the name CloudFormation would generate without its
 * random suffix: `<stack>-<logical id>`, the stack part cut to fit the
 * service's limit (a nested stack's name is long) so the logical id stays whole.
 */
const named = (r: ResourceInScope, property: string, limit = 255): string =>
  stringProperty(r, property) ?? `${r.stackName.slice(0, Math.max(0, limit - r.logicalId.length - 1))}-${r.logicalId}`.slice(0, limit);

const queueName = (r: ResourceInScope): string => {
  const fifo = r.property('FifoQueue') === true || r.property('FifoQueue') === 'true';
  return fifo && stringProperty(r, 'QueueName') === undefined ? `${named(r, 'QueueName', 75)}.fifo` : named(r, 'QueueName', 80);
};
const tableArn = (r: ResourceInScope): string => arn(r, 'dynamodb', `table/${r.bindings.tableName}`);
const secretArn = (r: ResourceInScope): string => arn(r, 'secretsmanager', `secret:${stringProperty(r, 'Name') ?? r.logicalId}-local`);
const iamPath = (r: ResourceInScope): string => stringProperty(r, 'Path') ?? '/';
const roleName = (r: ResourceInScope): string => named(r, 'RoleName', 64);
const roleArn = (r: ResourceInScope): string => globalArn(r, 'iam', `role${iamPath(r)}${roleName(r)}`);
const managedPolicyArn = (r: ResourceInScope): string => globalArn(r, 'iam', `policy${iamPath(r)}${named(r, 'ManagedPolicyName', 128)}`);
const logGroupName = (r: ResourceInScope): string => named(r, 'LogGroupName', 512);
const topicArn = (r: ResourceInScope): string => arn(r, 'sns', stringProperty(r, 'TopicName') ?? r.logicalId);
const baseHost = (r: ResourceInScope): string => new URL(r.bindings.baseUrl).host;

/** The FunctionName property, else the construct path as a name (Lambda allows 64 characters). */
export const functionNameOf = (r: ResourceInScope): string => stringProperty(r, 'FunctionName') ?? r.constructId.replaceAll('/', '-').slice(0, 64);
const functionArn = (r: ResourceInScope): string => arn(r, 'lambda', `function:${functionNameOf(r)}`);

const functionUrl: Local = (r) => {
  const target = r.property('TargetFunctionArn');
  const logicalId = typeof target === 'string' ? r.functionLogicalId(target) : undefined;
  return logicalId === undefined ? undefined : `https://${logicalId.toLowerCase()}.lambda-url.${r.bindings.region}.on.aws/`;
};

const table = { Ref: (r: ResourceInScope) => r.bindings.tableName, Arn: tableArn, StreamArn: (r: ResourceInScope) => `${tableArn(r)}/stream/local` };

const LOCAL: Record<string, Record<string, Local>> = {
  'AWS::DynamoDB::Table': table,
  'AWS::DynamoDB::GlobalTable': table,
  'AWS::SQS::Queue': {
    Ref: (r) => r.bindings.queueUrl(queueName(r)),
    QueueUrl: (r) => r.bindings.queueUrl(queueName(r)),
    Arn: (r) => arn(r, 'sqs', queueName(r)),
    QueueName: queueName,
  },
  'AWS::SecretsManager::Secret': { Ref: secretArn, Id: secretArn },
  'AWS::IAM::Role': { Ref: roleName, Arn: roleArn },
  'AWS::IAM::ManagedPolicy': { Ref: managedPolicyArn, PolicyArn: managedPolicyArn },
  'AWS::Lambda::Function': { Ref: functionNameOf, Arn: functionArn },
  'AWS::Lambda::Url': { FunctionUrl: functionUrl, FunctionArn: (r) => r.property('TargetFunctionArn') },
  'AWS::ApiGatewayV2::Api': { Ref: () => 'local', ApiId: () => 'local', ApiEndpoint: (r) => r.bindings.baseUrl },
  'AWS::ApiGatewayV2::Stage': { Ref: (r) => r.property('StageName') },
  // Routes name their integration as `integrations/<Ref>`: the logical id finds it again.
  'AWS::ApiGatewayV2::Integration': { Ref: (r) => r.logicalId },
  'AWS::ApiGatewayV2::Route': { Ref: (r) => r.logicalId },
  'AWS::CloudFront::Distribution': { Ref: () => 'local', Id: () => 'local', DomainName: baseHost },
  'AWS::Logs::LogGroup': { Ref: logGroupName, Arn: (r) => arn(r, 'logs', `log-group:${logGroupName(r)}:*`) },
  'AWS::SNS::Topic': { Ref: topicArn, TopicArn: topicArn, TopicName: (r) => stringProperty(r, 'TopicName') ?? r.logicalId },
};

export const localRef = (resource: ResourceInScope): Json | undefined => LOCAL[resource.type]?.Ref?.(resource);

export const localAttribute = (resource: ResourceInScope, attribute: string): Json | undefined =>
  attribute === 'Ref' ? undefined : LOCAL[resource.type]?.[attribute]?.(resource);
