import { Duration, NestedStack, type NestedStackProps, Validations } from 'aws-cdk-lib';
import { type HttpApi, HttpMethod, HttpRoute, HttpRouteKey, PayloadFormatVersion } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { RouteDefinition } from '#app/routes.js';
import type { QueueDefinition } from '#platform/queues.js';
import { DEFAULT_MEMORY_MB } from './bundling.js';
import { functionAlarms } from './monitoring.js';
import { ServiceFunctions, type SharedResources } from './service-functions.js';

/** API Gateway's integration timeout caps every HTTP route. */
export const DEFAULT_TIMEOUT_SECONDS = 29;
/** Function URLs allow up to 15 minutes; streams end before that. */
export const DEFAULT_STREAM_TIMEOUT_SECONDS = 900;

/** A queue as the root stack made it, with its definition. */
export interface FeatureQueue {
  readonly definition: QueueDefinition;
  readonly queue: sqs.IQueue;
  readonly dlq: sqs.IQueue;
}

export interface FeatureStackProps extends NestedStackProps {
  readonly feature: string;
  readonly shared: SharedResources;
  /** HTTP routes (API Gateway) of the feature. */
  readonly routes?: readonly RouteDefinition[];
  /** Streaming routes: each gets a response-streaming function URL. */
  readonly streams?: readonly RouteDefinition[];
  readonly queues?: readonly FeatureQueue[];
  readonly httpApi?: HttpApi;
  /** BASE_URL of the routes and workers (the streams' only when the operator names a base URL: see the root stack). */
  readonly baseUrl?: string;
  /** Variables of the routes marked `outbound` (the operator's outbound settings). */
  readonly outboundEnvironment?: Readonly<Record<string, string>>;
  /** Variables of the workers: the outbound settings and the model endpoint. */
  readonly workerEnvironment?: Readonly<Record<string, string>>;
  readonly alarmTopic?: sns.ITopic;
}

/** A route whose requests carry a credential: each is counted against its account's request rate. */
const rateLimited = (route: { auth?: string }): boolean => route.auth !== undefined && route.auth !== 'none';

/**
 * One feature of lib/ as a nested stack: its route functions with their API
 * Gateway routes, its streaming functions with their URLs, the workers of
 * its queues with their event source mappings, and alarms on its functions.
 * What it stands on (the table, the queues, the secrets, the API) is the
 * root stack's, passed in as nested-stack parameters, so no export ties a
 * feature's deploy to another's.
 */
export class FeatureStack extends NestedStack {
  readonly routeFunctions = new Map<string, NodejsFunction>();
  readonly streamFunctions = new Map<string, { fn: NodejsFunction; url: lambda.FunctionUrl }>();
  readonly workers = new Map<string, { worker: NodejsFunction; deadLetterWorker?: NodejsFunction }>();
  private readonly functions: ServiceFunctions;

  constructor(scope: Construct, id: string, props: FeatureStackProps) {
    super(scope, id, { description: `Workflow service: the ${props.feature} feature`, ...props });
    this.functions = new ServiceFunctions(this, props.shared);
    for (const route of props.streams ?? []) this.addStream(route, props);
    for (const route of props.routes ?? []) this.addRoute(route, props);
    for (const queue of props.queues ?? []) this.addWorkers(queue, props);
    functionAlarms(this, props.feature, this.functions.all, props.alarmTopic);
  }

  private addStream(route: RouteDefinition, props: FeatureStackProps): void {
    const fn = this.functions.create({
      id: `Stream${route.id}`,
      entry: route.entry,
      description: `Response-streaming function for ${route.method} ${route.path}`,
      timeoutSeconds: route.timeoutSeconds ?? DEFAULT_STREAM_TIMEOUT_SECONDS,
      memoryMb: route.memoryMb ?? DEFAULT_MEMORY_MB,
      table: route.table,
      rateLimited: rateLimited(route),
      serviceKey: route.serviceKey,
      environment: props.baseUrl ? { BASE_URL: props.baseUrl } : {},
    });
    // authType NONE: the function checks the bearer token itself. CloudFront origin access control would
    // sign the origin request with SigV4 and overwrite the client's Authorization header, so it cannot be used.
    const url = fn.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE, invokeMode: lambda.InvokeMode.RESPONSE_STREAM });
    this.streamFunctions.set(route.id, { fn, url });
  }

  private addRoute(route: RouteDefinition, props: FeatureStackProps): void {
    if (!props.httpApi) throw new Error(`Feature ${props.feature}: routes need the HTTP API.`);
    const fn = this.functions.create({
      id: route.id,
      entry: route.entry,
      description: `${route.method} ${route.path}`,
      timeoutSeconds: route.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
      memoryMb: route.memoryMb ?? DEFAULT_MEMORY_MB,
      table: route.table,
      rateLimited: rateLimited(route),
      sends: route.sends,
      serviceKey: route.serviceKey,
      staticFiles: route.staticFiles,
      schedules: route.schedules,
      environment: {
        ...(props.baseUrl ? { BASE_URL: props.baseUrl } : {}),
        // A route that calls addresses users chose (MCP servers) follows the same outbound settings as the workers.
        ...(route.outbound ? props.outboundEnvironment : {}),
      },
    });
    this.routeFunctions.set(route.id, fn);
    const integration = new HttpLambdaIntegration(`${route.id}Integration`, fn, { payloadFormatVersion: PayloadFormatVersion.VERSION_2_0 });
    const httpRoute = new HttpRoute(this, `${route.id}Route`, {
      httpApi: props.httpApi,
      routeKey: route.path === '$default' ? HttpRouteKey.DEFAULT : HttpRouteKey.with(route.path, HttpMethod[route.method]),
      integration,
    });
    Validations.of(httpRoute).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason: `${route.id} is authorized in the function: the bearer-token middleware checks API tokens and sessions (routes with auth 'none' are public by design: health, OpenAPI, login, 404).`,
    });
  }

  private addWorkers({ definition, queue, dlq }: FeatureQueue, props: FeatureStackProps): void {
    const spec = (id: string, entry: string, role: string, consumes: sqs.IQueue) => ({
      id,
      entry,
      description: `${role} for queue ${definition.name}`,
      timeoutSeconds: definition.workerTimeoutSeconds,
      memoryMb: definition.memoryMb ?? DEFAULT_MEMORY_MB,
      table: definition.table,
      sends: true,
      serviceKey: definition.serviceKey,
      consumes,
      environment: { ...(props.baseUrl ? { BASE_URL: props.baseUrl } : {}) },
    });
    const worker = this.functions.create({
      ...spec(`${definition.name}Worker`, definition.worker, 'Worker', queue),
      invokesModels: definition.invokesModels,
      schedules: definition.schedules,
      environment: { ...(props.baseUrl ? { BASE_URL: props.baseUrl } : {}), ...props.workerEnvironment },
    });
    worker.addEventSource(
      new SqsEventSource(queue, {
        batchSize: definition.batchSize,
        maxBatchingWindow: Duration.seconds(definition.maxBatchingWindowSeconds),
        reportBatchItemFailures: true,
      }),
    );
    let deadLetterWorker: NodejsFunction | undefined;
    if (definition.deadLetterWorker) {
      deadLetterWorker = this.functions.create(spec(`${definition.name}DeadLetterWorker`, definition.deadLetterWorker, 'Dead-letter worker', dlq));
      // One dead message at a time.
      deadLetterWorker.addEventSource(new SqsEventSource(dlq, { batchSize: 1, reportBatchItemFailures: true }));
    }
    this.workers.set(definition.name, { worker, deadLetterWorker });
  }
}
