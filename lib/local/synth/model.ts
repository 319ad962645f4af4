/**
 * What `npm run start:synth` reads out of a cloud assembly (cdk.out): the
 * deployed shape of the service, every reference resolved to a local
 * address. lib/local/synth/assembly.ts builds it; the IAM proxy, the bundle
 * runtime, the gateway and the pollers run it.
 */

/** An IAM policy statement as the template states it, references resolved. */
export interface PolicyStatement {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Action?: string | string[];
  NotAction?: string | string[];
  Resource?: string | string[];
  NotResource?: string | string[];
  Condition?: Record<string, Record<string, string | string[] | boolean>>;
}

/** A Lambda function of the template (any nested stack), ready to run locally. */
export interface DeployedFunction {
  /** Unique: the construct path of the function resource without the app root, e.g. `WorkflowService/Runs/RunsCreate`. */
  id: string;
  /** The logical id of the AWS::Lambda::Function resource in its own template. */
  logicalId: string;
  /** The name the runtime reports (AWS_LAMBDA_FUNCTION_NAME): the FunctionName property when set, else derived from `id`. */
  functionName: string;
  /** Absolute path of the function's asset folder in the assembly (holds index.mjs). */
  assetDir: string;
  /** `index.handler`: file stem and export. */
  handler: string;
  runtime: string;
  architecture: string;
  timeoutSeconds: number;
  memoryMb: number;
  /** Exactly the template's variables, every reference resolved. */
  environment: Record<string, string>;
  /** The execution role: its name and every identity-policy statement attached to it (inline and AWS::IAM::Policy), resolved. */
  role: { logicalId: string; name: string; arn: string; statements: PolicyStatement[] };
}

/** A route of the template's HTTP API (AWS::ApiGatewayV2::Route → Integration → Function). */
export interface DeployedRoute {
  /** `GET`, `POST`, ... or `ANY`; `$default` routes have method `ANY`. */
  method: string;
  /** API Gateway path syntax (`/v2/runs/{id}`), or `$default`. */
  path: string;
  functionId: string;
  /** The integration's payload format (`2.0`). */
  payloadFormatVersion: string;
}

/** A function URL and the CloudFront path pattern that sends requests to it. */
export interface DeployedFunctionUrl {
  functionId: string;
  invokeMode: 'BUFFERED' | 'RESPONSE_STREAM';
  authType: 'NONE' | 'AWS_IAM';
  /** CloudFront cache behaviours whose origin is this URL: `/v2/runs/* /events`-style patterns (no space). */
  pathPatterns: string[];
}

export interface DeployedQueue {
  logicalId: string;
  /** The QueueName property, resolved: the physical name created in the SQS emulator. */
  name: string;
  visibilityTimeoutSeconds: number;
  messageRetentionSeconds?: number;
  /** The redrive policy, when the queue has one. */
  redrive?: { deadLetterQueueName: string; maxReceiveCount: number };
}

/** An AWS::Lambda::EventSourceMapping from a queue to a function. */
export interface DeployedEventSource {
  functionId: string;
  queueName: string;
  batchSize: number;
  maximumBatchingWindowSeconds: number;
  reportBatchItemFailures: boolean;
  enabled: boolean;
}

export interface DeployedSecret {
  logicalId: string;
  /** The ARN the template's references resolve to locally. */
  arn: string;
  name: string;
  /** The GenerateSecretString settings, when the template generates the value. */
  generate?: { passwordLength?: number; excludePunctuation?: boolean };
  /** A value the template states (SecretString), resolved; an operator's key given as a parameter resolves to the local binding. */
  secretString?: string;
}

export interface DeployedShape {
  /** Top-level stack name (the artifact's stackName). */
  stackName: string;
  functions: DeployedFunction[];
  routes: DeployedRoute[];
  functionUrls: DeployedFunctionUrl[];
  queues: DeployedQueue[];
  eventSources: DeployedEventSource[];
  secrets: DeployedSecret[];
  /** The DynamoDB table (one): its logical id; its local name is LocalBindings.tableName. */
  table: { logicalId: string; name: string; arn: string };
  /** Resource counts by stack (construct path → count), for the synth report. */
  resourceCounts: Record<string, number>;
  /** References the resolver could not resolve (path in the template → what it was), for a warning. */
  unresolved: string[];
}

/** The local values references resolve to. */
export interface LocalBindings {
  region: string;
  accountId: string;
  /** The local physical name of the template's (one) DynamoDB table. */
  tableName: string;
  /** The local URL of a queue by its physical name. */
  queueUrl(name: string): string;
  /** `http://127.0.0.1:PORT`: what the HTTP API's endpoint and the distribution's domain stand for locally. */
  baseUrl: string;
  /** Values of the top-level stack's CloudFormation parameters, by parameter name (defaults apply otherwise). */
  parameters?: Record<string, string>;
}
