import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Aws, type CfnElement, CfnOutput, Duration, Fn, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpMethod, HttpRoute, HttpRouteKey, HttpStage, LogGroupLogDestination, PayloadFormatVersion } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { QUEUES } from '#app/queues.js';
import { ROUTES, type RouteDefinition } from '#app/routes.js';
import { OUTBOUND_VARIABLES, type OutboundVariable, outboundVariable } from '#net/outbound-settings.js';
import type { TableAccess } from '#platform/http/contract.js';
import { dlqName, type QueueDefinition, queueUrlVariable } from '#platform/queues.js';
import { SERVICE_KEY_VARIABLES } from '#platform/secrets/service-key.js';
import { TABLE_DEFINITION } from '#platform/table/definition.js';
import { keys } from '#platform/table/keys.js';
import { BUNDLE, DEFAULT_MEMORY_MB, ESM_REQUIRE_BANNER, EXTERNAL_MODULES } from './bundling.js';

/** Repository root: route and queue entries are relative to it. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface WorkflowServiceStackProps extends StackProps {
  /** Defaults to ROUTES from lib/app/routes.ts. */
  readonly routes?: readonly RouteDefinition[];
  /** Defaults to QUEUES from lib/app/queues.ts. */
  readonly queues?: readonly QueueDefinition[];
  /**
   * Public root of the service (`BASE_URL` of every function), e.g. a custom
   * domain in front of the distribution. When unset, the HTTP and queue
   * functions get `https://<distribution domain>`; the streaming functions
   * cannot (the distribution depends on their function URLs, so referencing the
   * distribution from it would be a cycle) and gets no BASE_URL.
   */
  readonly baseUrl?: string;
  /** Physical queue names are `${queuePrefix}${name}`; default `${stackName}-`. */
  readonly queuePrefix?: string;
  /** POWERTOOLS_SERVICE_NAME; default `workflow-service`. */
  readonly serviceName?: string;
  /**
   * Only for running the synthesized template locally (SAM): sets
   * DYNAMODB_ENDPOINT / SQS_ENDPOINT on every function. `sam local --env-vars`
   * can only override variables the template declares. Never set for AWS.
   */
  readonly localEndpoints?: { readonly dynamodb?: string; readonly sqs?: string };
  /**
   * Operator settings of the workers that run nodes: `OUTBOUND_ALLOWED_HOSTS`
   * (hostnames, IPs or CIDRs outbound calls may reach although non-public),
   * `OUTBOUND_ALLOW_INSECURE` ('true' allows http:), `OPENAI_BASE_URL` and
   * `OPENAI_API_KEY` (an OpenAI-compatible provider; without a key only
   * Bedrock and local/echo are configured). The outbound settings' earlier
   * names (`HTTP_NODE_ALLOWED_HOSTS`, `HTTP_NODE_ALLOW_INSECURE`) are accepted
   * and set under the new ones (see workerEnvironmentOf).
   */
  readonly workerEnvironment?: Readonly<Record<string, string>>;
}

const DEFAULT_TIMEOUT_SECONDS = 29;
/** Function URLs allow up to 15 minutes; streams end before that. */
const DEFAULT_STREAM_TIMEOUT_SECONDS = 900;

/**
 * The environment the workers get from `workerEnvironment`: the outbound
 * settings (lib/net/outbound-settings.ts) under their own names, a value
 * given under an earlier name (alias) moved to its own name unless that is
 * given too, which wins.
 */
export function workerEnvironmentOf(environment: Readonly<Record<string, string>> = {}): Record<string, string> {
  const out: Record<string, string> = { ...environment };
  for (const name of Object.keys(OUTBOUND_VARIABLES) as OutboundVariable[]) {
    const found = outboundVariable(name, environment);
    for (const alias of OUTBOUND_VARIABLES[name]) delete out[alias];
    if (found) out[name] = found.value;
  }
  return out;
}

/** Only the outbound settings of `workerEnvironment`, under their own names: what routes marked `outbound` get. */
export function outboundEnvironmentOf(environment: Readonly<Record<string, string>> = {}): Record<string, string> {
  const all = workerEnvironmentOf(environment);
  return Object.fromEntries(Object.keys(OUTBOUND_VARIABLES).flatMap((name) => (all[name] === undefined ? [] : [[name, all[name]]])));
}

/** `QUEUE_URL_<NAME>`: the same name the local stack sets (lib/app/queues.ts). */
export const queueUrlEnvName = queueUrlVariable;

/** `/v2/runs/{id}/events` → `/v2/runs/* /events` (a CloudFront path pattern). */
export const cloudFrontPathPattern = (path: string): string => path.replace(/\{[^}]+\}/g, '*');

interface FunctionSpec {
  entry: string;
  description: string;
  timeoutSeconds: number;
  memoryMb: number;
  table: TableAccess;
  /** Derives webhook secrets: may read the service key. */
  serviceKey?: boolean;
  /** Serves an authenticated route, so writes its account's rate log (lib/accounts/rate-limiter.ts) on every request, reads included. */
  rateLimited?: boolean;
}

/** A route whose requests carry a credential: each is counted against its account's request rate. */
const rateLimited = (route: { auth?: string }): boolean => route.auth !== undefined && route.auth !== 'none';

/**
 * The whole service: one table, one Lambda function and HTTP API route per
 * route, the queues and their workers, a response-streaming function for
 * each streaming route, and a CloudFront distribution serving all of it under
 * one base URL.
 */
export class WorkflowServiceStack extends Stack {
  readonly table: dynamodb.Table;
  readonly httpApi: HttpApi;
  readonly distribution: cloudfront.Distribution;
  readonly routeFunctions = new Map<string, NodejsFunction>();
  readonly queues = new Map<string, { queue: sqs.Queue; dlq: sqs.Queue; worker: NodejsFunction; deadLetterWorker?: NodejsFunction }>();
  /** The response-streaming function and its URL, by streaming route id. */
  readonly streamFunctions = new Map<string, { fn: NodejsFunction; url: lambda.FunctionUrl }>();

  private readonly allFunctions: NodejsFunction[] = [];
  private readonly sharedEnvironment: Record<string, string>;
  /** The key every webhook secret is derived from (lib/platform/secrets/service-key.ts); generated here, never in the template. */
  readonly serviceKey: secretsmanager.Secret;

  constructor(scope: Construct, id: string, props: WorkflowServiceStackProps = {}) {
    super(scope, id, props);
    const routes = props.routes ?? ROUTES;
    const queueDefinitions = props.queues ?? QUEUES;
    validate(routes, queueDefinitions);

    // --- Table -----------------------------------------------------------
    const attribute = (name: string): dynamodb.Attribute => ({ name, type: dynamodb.AttributeType.STRING });
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: attribute(TABLE_DEFINITION.partitionKey),
      sortKey: attribute(TABLE_DEFINITION.sortKey),
      timeToLiveAttribute: TABLE_DEFINITION.ttlAttribute,
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of TABLE_DEFINITION.globalSecondaryIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: attribute(index.partitionKey),
        sortKey: attribute(index.sortKey),
        projectionType: dynamodb.ProjectionType.ALL,
      });
    }

    this.serviceKey = new secretsmanager.Secret(this, 'ServiceKey', {
      description: 'Workflow service key: webhook secrets are derived from it, so the table holds none.',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.serviceKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotating the service key would change every derived webhook secret at once; hooks and endpoints rotate their own secrets (rotate-secret) instead.',
    });

    // --- Queues ----------------------------------------------------------
    const queuePrefix = props.queuePrefix ?? `${this.stackName}-`;
    const queueResources = queueDefinitions.map((definition) => {
      const dlq = new sqs.Queue(this, `${definition.name}Dlq`, {
        queueName: `${queuePrefix}${dlqName(definition)}`,
        retentionPeriod: Duration.days(14),
        // A dead message is handed to the dead-letter worker, whose timeout is the worker's.
        visibilityTimeout: Duration.seconds(definition.visibilityTimeoutSeconds),
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
      });
      const queue = new sqs.Queue(this, `${definition.name}Queue`, {
        queueName: `${queuePrefix}${definition.name}`,
        visibilityTimeout: Duration.seconds(definition.visibilityTimeoutSeconds),
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        deadLetterQueue: { queue: dlq, maxReceiveCount: definition.maxReceiveCount },
      });
      return { definition, queue, dlq };
    });

    this.sharedEnvironment = {
      TABLE_NAME: this.table.tableName,
      QUEUE_PREFIX: queuePrefix,
      POWERTOOLS_SERVICE_NAME: props.serviceName ?? 'workflow-service',
      NODE_OPTIONS: '--enable-source-maps',
      ...Object.fromEntries(queueResources.map(({ definition, queue }) => [queueUrlEnvName(definition.name), queue.queueUrl])),
      ...(props.localEndpoints?.dynamodb ? { DYNAMODB_ENDPOINT: props.localEndpoints.dynamodb } : {}),
      ...(props.localEndpoints?.sqs ? { SQS_ENDPOINT: props.localEndpoints.sqs } : {}),
    };

    // --- HTTP API ---------------------------------------------------------
    this.httpApi = new HttpApi(this, 'HttpApi', {
      description: 'Workflow service HTTP API (one route and one function per route table entry).',
      createDefaultStage: false,
    });
    const accessLogs = new logs.LogGroup(this, 'HttpApiAccessLogs', { retention: logs.RetentionDays.ONE_MONTH });
    const stage = new HttpStage(this, 'HttpApiDefaultStage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            ip: '$context.identity.sourceIp',
            requestTime: '$context.requestTime',
            httpMethod: '$context.httpMethod',
            path: '$context.path',
            routeKey: '$context.routeKey',
            status: '$context.status',
            protocol: '$context.protocol',
            responseLength: '$context.responseLength',
            responseLatency: '$context.responseLatency',
            integrationLatency: '$context.integrationLatency',
            integrationError: '$context.integrationErrorMessage',
            userAgent: '$context.identity.userAgent',
          }),
        ),
      },
    });
    // The API's own host name, e.g. abc123.execute-api.eu-west-1.amazonaws.com.
    const apiDomain = Fn.select(2, Fn.split('/', this.httpApi.apiEndpoint));

    // --- Streaming functions, one per streaming route -----------------------
    // Each has its own function URL, timeout and memory, as each route has its own function.
    const streamingRoutes = routes.filter((r) => r.streaming);
    for (const route of streamingRoutes) {
      const fn = this.createFunction(`Stream${route.id}`, {
        entry: route.entry,
        description: `Response-streaming function for ${route.method} ${route.path}`,
        timeoutSeconds: route.timeoutSeconds ?? DEFAULT_STREAM_TIMEOUT_SECONDS,
        memoryMb: route.memoryMb ?? DEFAULT_MEMORY_MB,
        table: route.table,
        rateLimited: rateLimited(route),
        serviceKey: route.serviceKey,
      });
      // authType NONE: the function checks the bearer token itself. CloudFront
      // origin access control would sign the origin request with SigV4 and
      // overwrite the client's Authorization header, so it cannot be used.
      // (No cdk-nag AwsSolutions rule covers function URL auth, so nothing to acknowledge.)
      const url = fn.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE, invokeMode: lambda.InvokeMode.RESPONSE_STREAM });
      this.streamFunctions.set(route.id, { fn, url });
    }

    // --- CloudFront: one base URL for the API and the streams --------------
    // CloudFront forwards Authorization only when it is part of the cache key
    // (an origin request policy may not list it), and a cache policy with
    // headers in the key needs a maximum TTL above zero. Responses carry
    // `Cache-Control: no-store` and the default TTL is 0, so nothing is cached.
    const cachePolicy = new cloudfront.CachePolicy(this, 'ApiCachePolicy', {
      comment: 'Pass-through for the API: Authorization in the key so it is forwarded; effectively no caching.',
      minTtl: Duration.seconds(0),
      defaultTtl: Duration.seconds(0),
      maxTtl: Duration.seconds(1),
      headerBehavior: cloudfront.CacheHeaderBehavior.allowList('Authorization'),
      queryStringBehavior: cloudfront.CacheQueryStringBehavior.all(),
      cookieBehavior: cloudfront.CacheCookieBehavior.all(),
      enableAcceptEncodingGzip: true,
      enableAcceptEncodingBrotli: true,
    });
    const passThrough = {
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
      cachePolicy,
      // All viewer headers but Host (API Gateway and function URLs route on their own Host), query strings, cookies.
      originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
    } as const;
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: `${this.stackName} workflow service`,
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      priceClass: cloudfront.PriceClass.PRICE_CLASS_100,
      defaultBehavior: {
        ...passThrough,
        origin: new origins.HttpOrigin(apiDomain, {
          protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
          originSslProtocols: [cloudfront.OriginSslPolicy.TLS_V1_2],
          readTimeout: Duration.seconds(30),
        }),
        compress: true,
      },
    });
    for (const route of streamingRoutes) {
      const streamOrigin = new origins.FunctionUrlOrigin(this.streamFunctions.get(route.id)!.url, {
        // Streams must send something (an SSE comment) at least this often. The default
        // CloudFront quota allows up to 120 s; 60 s leaves room for older accounts' limits.
        readTimeout: Duration.seconds(60),
        keepaliveTimeout: Duration.seconds(60),
      });
      // Compression would buffer the stream.
      this.distribution.addBehavior(cloudFrontPathPattern(route.path), streamOrigin, { ...passThrough, compress: false });
    }
    const distributionUrl = `https://${this.distribution.distributionDomainName}`;
    const baseUrl = props.baseUrl?.replace(/\/$/, '');
    if (baseUrl) for (const { fn } of this.streamFunctions.values()) fn.addEnvironment('BASE_URL', baseUrl);
    const publicUrl = baseUrl ?? distributionUrl;

    // --- Route functions and routes ---------------------------------------
    for (const route of routes.filter((r) => !r.streaming)) {
      const fn = this.createFunction(route.id, {
        entry: route.entry,
        description: `${route.method} ${route.path}`,
        timeoutSeconds: route.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
        memoryMb: route.memoryMb ?? DEFAULT_MEMORY_MB,
        table: route.table,
        rateLimited: rateLimited(route),
      });
      fn.addEnvironment('BASE_URL', publicUrl);
      // A route that calls addresses users chose (MCP servers) follows the same outbound settings as the workers.
      if (route.outbound) for (const [name, value] of Object.entries(outboundEnvironmentOf(props.workerEnvironment))) fn.addEnvironment(name, value);
      this.routeFunctions.set(route.id, fn);
      const integration = new HttpLambdaIntegration(`${route.id}Integration`, fn, {
        payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
      });
      const httpRoute = new HttpRoute(this, `${route.id}Route`, {
        httpApi: this.httpApi,
        routeKey: route.path === '$default' ? HttpRouteKey.DEFAULT : HttpRouteKey.with(route.path, HttpMethod[route.method]),
        integration,
      });
      Validations.of(httpRoute).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason: `${route.id} is authorized in the function: the bearer-token middleware checks API tokens and sessions (routes with auth 'none' are public by design: health, OpenAPI, login, 404).`,
      });
    }

    // --- Workers ------------------------------------------------------------
    for (const { definition, queue, dlq } of queueResources) {
      const workerSpec = (entry: string, role: string): FunctionSpec => ({
        entry,
        description: `${role} for queue ${definition.name}`,
        timeoutSeconds: definition.workerTimeoutSeconds,
        memoryMb: definition.memoryMb ?? DEFAULT_MEMORY_MB,
        table: definition.table,
        serviceKey: definition.serviceKey,
      });
      const worker = this.createFunction(`${definition.name}Worker`, workerSpec(definition.worker, 'Worker'));
      worker.addEnvironment('BASE_URL', publicUrl);
      for (const [name, value] of Object.entries(workerEnvironmentOf(props.workerEnvironment))) worker.addEnvironment(name, value);
      if (definition.invokesModels) {
        worker.addToRolePolicy(
          new iam.PolicyStatement({
            actions: ['bedrock:InvokeModel'],
            resources: [`arn:${Aws.PARTITION}:bedrock:*::foundation-model/*`, `arn:${Aws.PARTITION}:bedrock:*:${Aws.ACCOUNT_ID}:inference-profile/*`],
          }),
        );
        const reason =
          'Agent nodes name their Bedrock model at run time (bedrock/<model id>), so the worker may invoke any foundation model or inference profile; nothing else.';
        for (const resource of ['arn:<AWS::Partition>:bedrock:*::foundation-model/*', 'arn:<AWS::Partition>:bedrock:*:<AWS::AccountId>:inference-profile/*']) {
          Validations.of(worker.role!).acknowledge({ id: `AwsSolutions-IAM5[Resource::${resource}]`, reason });
        }
      }
      worker.addEventSource(
        new SqsEventSource(queue, {
          batchSize: definition.batchSize,
          maxBatchingWindow: Duration.seconds(definition.maxBatchingWindowSeconds),
          reportBatchItemFailures: true,
        }),
      );
      let deadLetterWorker: NodejsFunction | undefined;
      if (definition.deadLetterWorker) {
        deadLetterWorker = this.createFunction(`${definition.name}DeadLetterWorker`, workerSpec(definition.deadLetterWorker, 'Dead-letter worker'));
        deadLetterWorker.addEnvironment('BASE_URL', publicUrl);
        // One dead message at a time.
        deadLetterWorker.addEventSource(new SqsEventSource(dlq, { batchSize: 1, reportBatchItemFailures: true }));
      }
      this.queues.set(definition.name, { queue, dlq, worker, deadLetterWorker });
    }

    // Starting a run checks that an agent's provider is configured; the API
    // functions learn that the OpenAI-compatible one is without getting its key.
    if (props.workerEnvironment?.OPENAI_API_KEY) {
      for (const fn of this.allFunctions) fn.addEnvironment('OPENAI_CONFIGURED', 'true');
    }

    // Only routes marked `sends` and the workers may send to the queues.
    const senders = [
      ...routes.filter((r) => r.sends && !r.streaming).map((r) => this.routeFunctions.get(r.id)!),
      ...[...this.queues.values()].flatMap((q) => (q.deadLetterWorker ? [q.worker, q.deadLetterWorker] : [q.worker])),
    ];
    for (const { queue } of queueResources) {
      for (const fn of senders) queue.grantSendMessages(fn);
    }

    // --- Outputs --------------------------------------------------------------
    new CfnOutput(this, 'ApiUrl', { value: stage.url, description: 'HTTP API endpoint (bypasses CloudFront; no streaming routes).' });
    new CfnOutput(this, 'BaseUrl', { value: distributionUrl, description: 'Public base URL: CloudFront in front of the API and the streams.' });
    for (const [routeId, { url }] of this.streamFunctions) {
      const route = streamingRoutes.find((r) => r.id === routeId)!;
      new CfnOutput(this, `StreamUrl${routeId}`, { value: url.url, description: `Response-streaming function URL of ${route.method} ${route.path}.` });
    }
    new CfnOutput(this, 'TableName', { value: this.table.tableName, description: 'DynamoDB table (TABLE_NAME for the admin CLI).' });

    this.acknowledgeDistributionFindings();
  }

  private createFunction(id: string, spec: FunctionSpec): NodejsFunction {
    const logGroup = new logs.LogGroup(this, `${id}Logs`, { retention: logs.RetentionDays.ONE_MONTH });
    // Own role instead of AWSLambdaBasicExecutionRole: write to its log group only.
    const role = new iam.Role(this, `${id}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${id}`,
    });
    logGroup.grantWrite(role);
    const fn = new NodejsFunction(this, id, {
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
      environment: { ...this.sharedEnvironment },
      bundling: {
        minify: BUNDLE.minify,
        sourceMap: true,
        format: OutputFormat.ESM,
        target: BUNDLE.target,
        mainFields: [...BUNDLE.mainFields],
        banner: ESM_REQUIRE_BANNER,
        logLevel: LogLevel.WARNING,
        externalModules: EXTERNAL_MODULES,
      },
    });
    if (spec.serviceKey) {
      this.serviceKey.grantRead(fn);
      fn.addEnvironment(SERVICE_KEY_VARIABLES.secretArn, this.serviceKey.secretArn);
    }
    if (spec.table === 'read') this.table.grantReadData(fn);
    else if (spec.table === 'readwrite') this.table.grantReadWriteData(fn);
    if (spec.rateLimited && spec.table !== 'readwrite') {
      // A read-only route still writes its account's rate log: that one action, on those items only.
      role.addToPolicy(
        new iam.PolicyStatement({
          actions: ['dynamodb:UpdateItem'],
          resources: [this.table.tableArn],
          conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${keys.rateLog('').pk}*`] } },
        }),
      );
    }
    this.acknowledgeFunctionFindings(fn, role, spec.table);
    this.allFunctions.push(fn);
    return fn;
  }

  /**
   * cdk-nag: v3 acknowledges findings through CDK's Validations API, on the
   * narrowest construct that has them. Everything cheap to fix is fixed
   * above; these are the deliberate exceptions.
   */
  private acknowledgeFunctionFindings(fn: NodejsFunction, role: iam.Role, table: TableAccess): void {
    Validations.of(fn).acknowledge({
      id: 'AwsSolutions-L1',
      reason: 'nodejs22.x is pinned on purpose: bundles are built for target node22 and the runtime is upgraded deliberately, together with the target.',
    });
    if (table !== 'none') {
      Validations.of(role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${this.resolve((this.table.node.defaultChild as CfnElement).logicalId)}.Arn>/index/*]`,
        reason:
          'The DynamoDB grant includes the table’s indexes (`<table arn>/index/*`) so the handler can query the GSIs; the wildcard covers only this table’s indexes.',
      });
    }
  }

  private acknowledgeDistributionFindings(): void {
    Validations.of(this.distribution).acknowledge(
      { id: 'AwsSolutions-CFR1', reason: 'Geo restriction is a business decision left to operators; the service has no country restrictions.' },
      {
        id: 'AwsSolutions-CFR2',
        reason:
          'AWS WAF is optional for operators (it has a fixed monthly cost and needs rules tuned to the traffic); every non-public route checks a bearer token in the function.',
      },
      {
        id: 'AwsSolutions-CFR3',
        reason:
          'The HTTP API stage writes access logs for every request reaching it and each function logs its own requests; CloudFront standard logs (an extra bucket) would duplicate them.',
      },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          'The distribution uses the default *.cloudfront.net certificate, with which CloudFront fixes the viewer TLS policy; a custom domain with an ACM certificate and TLSv1.2_2021 is an operator option.',
      },
    );
  }
}

function validate(routes: readonly RouteDefinition[], queues: readonly QueueDefinition[]): void {
  const ids = new Set<string>();
  for (const route of routes) {
    if (ids.has(route.id)) throw new Error(`Duplicate route id ${route.id}.`);
    ids.add(route.id);
  }
  const patterns = routes.filter((r) => r.streaming).map((r) => cloudFrontPathPattern(r.path));
  if (new Set(patterns).size < patterns.length) throw new Error(`Two streaming routes share a CloudFront path pattern: ${patterns.join(', ')}.`);
  if (routes.some((r) => r.streaming && r.path === '$default')) throw new Error('$default cannot be a streaming route.');
  const names = new Set<string>();
  for (const queue of queues) {
    if (names.has(queue.name)) throw new Error(`Duplicate queue name ${queue.name}.`);
    names.add(queue.name);
    if (queue.visibilityTimeoutSeconds <= queue.workerTimeoutSeconds) {
      throw new Error(`Queue ${queue.name}: visibilityTimeoutSeconds must exceed workerTimeoutSeconds.`);
    }
  }
}
