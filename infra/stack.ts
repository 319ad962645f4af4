import { CfnOutput, CfnParameter, Duration, Fn, RemovalPolicy, SecretValue, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { FEATURE_LAYOUT, type FeatureLayout, type RouteDefinition } from '#app/routes.js';
import { OUTBOUND_VARIABLES, type OutboundVariable, outboundVariable } from '#net/outbound-settings.js';
import { ASSETS_PREFIX } from '#pages/model.js';
import { dlqName, type QueueDefinition, queueUrlVariable } from '#platform/queues.js';
import { TABLE_DEFINITION } from '#platform/table/definition.js';
import { SCHEDULE_FIRINGS_QUEUE } from '#schedules/queues.js';
import { type FeatureQueue, FeatureStack } from './feature-stack.js';
import { alarmTopic, serviceMonitoring } from './monitoring.js';
import { type SchedulerResources, scheduleFirings } from './schedules.js';
import type { SharedResources } from './service-functions.js';

export { REPO_ROOT } from './service-functions.js';

export interface WorkflowServiceStackProps extends StackProps {
  /** The features to deploy, each a nested stack; defaults to every feature of lib/ (lib/app/routes.ts FEATURE_LAYOUT). */
  readonly features?: readonly FeatureLayout[];
  /**
   * Public root of the service (`BASE_URL` of every function), e.g. a custom
   * domain in front of the distribution. When unset, the HTTP and queue
   * functions get `https://<distribution domain>`; the streaming functions
   * cannot (the distribution depends on their function URLs, so referencing the
   * distribution from them would be a cycle) and get no BASE_URL.
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
   * `OUTBOUND_ALLOW_INSECURE` ('true' allows http:), `OPENAI_BASE_URL`. The
   * outbound settings' earlier names (`HTTP_NODE_ALLOWED_HOSTS`,
   * `HTTP_NODE_ALLOW_INSECURE`) are accepted and set under the new ones.
   * Never a key: `OPENAI_API_KEY` here is refused (see `openai`).
   */
  readonly workerEnvironment?: Readonly<Record<string, string>>;
  /**
   * The OpenAI-compatible provider: configured when given. Its key is a
   * Secrets Manager secret, never in the template: an existing one
   * (`keySecretArn`), or one the stack creates from the NoEcho parameter
   * `OpenAiApiKey` (`cdk deploy --parameters OpenAiApiKey=...`).
   */
  readonly openai?: { readonly keySecretArn?: string };
  /** An e-mail address the alarms notify (a subscription to confirm); the alarm topic exists either way. */
  readonly alarmEmail?: string;
}

/** The parameter that carries the OpenAI-compatible provider's key at deploy time. */
export const OPENAI_KEY_PARAMETER = 'OpenAiApiKey';

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

/**
 * The whole service. The root stack holds what keeps state or is shared
 * (the table, the queues and their dead-letter queues, the secrets, the HTTP
 * API, CloudFront, the alarms and the dashboard); each feature of lib/ is a
 * nested stack with its functions, routes and workers (infra/feature-stack.ts),
 * and the response-streaming functions are one more (`Streams`), because the
 * distribution depends on their URLs while every other function's BASE_URL
 * depends on the distribution. docs/deploy.md says why and what each new route
 * and queue costs.
 */
export class WorkflowServiceStack extends Stack {
  readonly table: dynamodb.Table;
  readonly httpApi: HttpApi;
  readonly distribution: cloudfront.Distribution;
  readonly serviceKey: secretsmanager.Secret;
  readonly modelKey?: secretsmanager.ISecret;
  readonly queues = new Map<string, FeatureQueue>();
  /** The nested stack of each feature, by feature name, and the streams' (`streams`). */
  readonly featureStacks = new Map<string, FeatureStack>();
  readonly streams: FeatureStack;
  /** EventBridge Scheduler's group and role, when a feature has the schedule firings queue. */
  readonly scheduler?: SchedulerResources;

  constructor(scope: Construct, id: string, props: WorkflowServiceStackProps = {}) {
    super(scope, id, props);
    const features = props.features ?? FEATURE_LAYOUT;
    const routes = features.flatMap((f) => f.routes);
    validate(
      routes,
      features.flatMap((f) => f.queues),
    );
    if (props.workerEnvironment?.OPENAI_API_KEY) {
      throw new Error(
        'A model key is never put in the template: give it at deploy time as the OpenAiApiKey parameter, or an existing secret (openai.keySecretArn).',
      );
    }

    this.table = this.createTable();
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
    this.modelKey = props.openai ? this.createModelKey(props.openai) : undefined;

    const queuePrefix = props.queuePrefix ?? `${this.stackName}-`;
    for (const definition of features.flatMap((f) => f.queues)) this.queues.set(definition.name, this.createQueue(definition, queuePrefix));

    const firings = this.queues.get(SCHEDULE_FIRINGS_QUEUE);
    this.scheduler = firings ? scheduleFirings(this, firings, { localTemplate: props.localEndpoints !== undefined }) : undefined;

    const shared: SharedResources = {
      table: this.table,
      queues: [...this.queues.values()].map((q) => q.queue),
      serviceKey: this.serviceKey,
      modelKey: this.modelKey,
      scheduler: this.scheduler,
      environment: {
        TABLE_NAME: this.table.tableName,
        QUEUE_PREFIX: queuePrefix,
        POWERTOOLS_SERVICE_NAME: props.serviceName ?? 'workflow-service',
        NODE_OPTIONS: '--enable-source-maps',
        ...Object.fromEntries([...this.queues.values()].map(({ definition, queue }) => [queueUrlVariable(definition.name), queue.queueUrl])),
        // Starting a run checks that an agent's provider is configured; every function learns it without the key.
        ...(props.openai ? { OPENAI_CONFIGURED: 'true' } : {}),
        ...(props.localEndpoints?.dynamodb ? { DYNAMODB_ENDPOINT: props.localEndpoints.dynamodb } : {}),
        ...(props.localEndpoints?.sqs ? { SQS_ENDPOINT: props.localEndpoints.sqs } : {}),
      },
    };
    const topic = alarmTopic(this, props.alarmEmail);
    const baseUrl = props.baseUrl?.replace(/\/$/, '');

    const { httpApi, stage } = this.createHttpApi();
    this.httpApi = httpApi;
    this.streams = new FeatureStack(this, 'Streams', {
      feature: 'streams',
      shared,
      streams: routes.filter((r) => r.streaming),
      baseUrl,
      alarmTopic: topic,
    });
    this.featureStacks.set('streams', this.streams);
    this.distribution = this.createDistribution(routes.filter((r) => r.streaming));
    const distributionUrl = `https://${this.distribution.distributionDomainName}`;

    for (const feature of features) {
      const httpRoutes = feature.routes.filter((r) => !r.streaming);
      if (httpRoutes.length === 0 && feature.queues.length === 0) continue;
      const nested = new FeatureStack(this, pascal(feature.name), {
        feature: feature.name,
        shared,
        routes: httpRoutes,
        queues: feature.queues.map((q) => this.queues.get(q.name)!),
        httpApi,
        baseUrl: baseUrl ?? distributionUrl,
        outboundEnvironment: outboundEnvironmentOf(props.workerEnvironment),
        workerEnvironment: workerEnvironmentOf(props.workerEnvironment),
        alarmTopic: topic,
      });
      this.featureStacks.set(feature.name, nested);
    }

    serviceMonitoring(this, {
      httpApi,
      queues: [...this.queues.values()].map(({ definition, queue, dlq }) => ({ name: definition.name, queue, dlq })),
      topic,
    });

    new CfnOutput(this, 'ApiUrl', { value: stage.url, description: 'HTTP API endpoint (bypasses CloudFront; no streaming routes).' });
    new CfnOutput(this, 'BaseUrl', { value: distributionUrl, description: 'Public base URL: CloudFront in front of the API and the streams.' });
    for (const [routeId, { url }] of this.streams.streamFunctions) {
      const route = routes.find((r) => r.id === routeId)!;
      new CfnOutput(this, `StreamUrl${routeId}`, { value: url.url, description: `Response-streaming function URL of ${route.method} ${route.path}.` });
    }
    new CfnOutput(this, 'TableName', { value: this.table.tableName, description: 'DynamoDB table (TABLE_NAME for the admin CLI).' });
    new CfnOutput(this, 'AlarmTopicArn', { value: topic.topicArn, description: 'SNS topic the alarms notify: subscribe to it.' });
  }

  /** The route function of a route id, whichever nested stack holds it. */
  routeFunction(id: string) {
    for (const stack of this.featureStacks.values()) {
      const fn = stack.routeFunctions.get(id) ?? stack.streamFunctions.get(id)?.fn;
      if (fn) return fn;
    }
    return undefined;
  }

  private createTable(): dynamodb.Table {
    const attribute = (name: string): dynamodb.Attribute => ({ name, type: dynamodb.AttributeType.STRING });
    const table = new dynamodb.Table(this, 'Table', {
      partitionKey: attribute(TABLE_DEFINITION.partitionKey),
      sortKey: attribute(TABLE_DEFINITION.sortKey),
      timeToLiveAttribute: TABLE_DEFINITION.ttlAttribute,
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of TABLE_DEFINITION.globalSecondaryIndexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: attribute(index.partitionKey),
        sortKey: attribute(index.sortKey),
        projectionType: dynamodb.ProjectionType.ALL,
      });
    }
    return table;
  }

  private createModelKey(openai: NonNullable<WorkflowServiceStackProps['openai']>): secretsmanager.ISecret {
    if (openai.keySecretArn) return secretsmanager.Secret.fromSecretCompleteArn(this, 'OpenAiKey', openai.keySecretArn);
    const parameter = new CfnParameter(this, OPENAI_KEY_PARAMETER, {
      type: 'String',
      noEcho: true,
      minLength: 1,
      description: 'The OpenAI-compatible provider’s API key (kept in Secrets Manager; cdk deploy keeps the previous value when not given again).',
    });
    const secret = new secretsmanager.Secret(this, 'OpenAiKey', {
      description: 'The OpenAI-compatible model provider’s API key, read by the workers that call models.',
      secretStringValue: SecretValue.cfnParameter(parameter),
    });
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'The provider issues the key; the operator rotates it there and deploys the new value (docs/deploy.md).',
    });
    return secret;
  }

  private createQueue(definition: QueueDefinition, queuePrefix: string): FeatureQueue {
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
  }

  private createHttpApi(): { httpApi: HttpApi; stage: HttpStage } {
    const httpApi = new HttpApi(this, 'HttpApi', {
      description: 'Workflow service HTTP API (one route and one function per route table entry).',
      createDefaultStage: false,
    });
    const accessLogs = new logs.LogGroup(this, 'HttpApiAccessLogs', { retention: logs.RetentionDays.ONE_MONTH });
    const stage = new HttpStage(this, 'HttpApiDefaultStage', {
      httpApi,
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
    return { httpApi, stage };
  }

  /** One base URL for the API and the streams. */
  private createDistribution(streamingRoutes: readonly RouteDefinition[]): cloudfront.Distribution {
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
    // The API's own host name, e.g. abc123.execute-api.eu-west-1.amazonaws.com.
    const apiDomain = Fn.select(2, Fn.split('/', this.httpApi.apiEndpoint));
    const apiOrigin = new origins.HttpOrigin(apiDomain, {
      protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
      originSslProtocols: [cloudfront.OriginSslPolicy.TLS_V1_2],
      readTimeout: Duration.seconds(30),
    });
    const distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: `${this.stackName} workflow service`,
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      priceClass: cloudfront.PriceClass.PRICE_CLASS_100,
      defaultBehavior: { ...passThrough, origin: apiOrigin, compress: true },
    });
    // The console's and the reference page's content-hashed files never change: cached at the edge, no cookie or credential in the key.
    distribution.addBehavior(`${ASSETS_PREFIX}*`, apiOrigin, {
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD,
      cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
      compress: true,
    });
    for (const route of streamingRoutes) {
      const streamOrigin = new origins.FunctionUrlOrigin(this.streams.streamFunctions.get(route.id)!.url, {
        // Streams must send something (an SSE comment) at least this often. The default
        // CloudFront quota allows up to 120 s; 60 s leaves room for older accounts' limits.
        readTimeout: Duration.seconds(60),
        keepaliveTimeout: Duration.seconds(60),
      });
      // Compression would buffer the stream.
      distribution.addBehavior(cloudFrontPathPattern(route.path), streamOrigin, { ...passThrough, compress: false });
    }
    Validations.of(distribution).acknowledge(
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
    return distribution;
  }
}

/** `webhooks` → `Webhooks`, `api-tokens` → `ApiTokens`: a nested stack's construct id. */
const pascal = (name: string): string =>
  name
    .split(/[-_]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

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
