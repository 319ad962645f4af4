import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { App, type CfnElement, Validations } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { test } from 'vitest';
import { ROUTES, type RouteDefinition } from '#app/routes.js';
import type { QueueDefinition } from '#platform/queues.js';
import { TABLE_DEFINITION } from '#platform/table/definition.js';
import { keys } from '#platform/table/keys.js';
import { cloudFrontPathPattern, outboundEnvironmentOf, queueUrlEnvName, REPO_ROOT, WorkflowServiceStack, workerEnvironmentOf } from '../../infra/stack.js';

// One synthesis for the whole file (every function is bundled with esbuild).
// The real route table (with its two streams: a request's live stream and a
// run's events) and a test queue.
const STREAM_ROUTES: RouteDefinition[] = ROUTES.filter((r) => r.streaming);
assert.deepEqual(
  STREAM_ROUTES.map((r) => r.path),
  ['/v1/workflow-requests/{id}/listen', '/v2/runs/{id}/events'],
);
const TEST_QUEUE: QueueDefinition = {
  name: 'test-jobs',
  worker: 'test/infra/fixtures/worker.ts',
  deadLetterWorker: 'test/infra/fixtures/dead-letter.ts',
  visibilityTimeoutSeconds: 90,
  workerTimeoutSeconds: 30,
  maxReceiveCount: 4,
  batchSize: 7,
  maxBatchingWindowSeconds: 2,
  table: 'readwrite',
  invokesModels: true,
};
const routes: RouteDefinition[] = [...ROUTES];
const httpRoutes = routes.filter((r) => !r.streaming);

// Same feature flags as `cdk synth` (cdk.json), same cdk-nag plugin as infra/app.ts.
const cdkJson = JSON.parse(readFileSync(resolve(REPO_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> };
const app = new App({ context: cdkJson.context });
const stack = new WorkflowServiceStack(app, 'WorkflowServiceTest', {
  routes,
  queues: [TEST_QUEUE],
  // The outbound settings under an earlier name (HTTP_NODE_ALLOWED_HOSTS) and their own (OUTBOUND_ALLOW_INSECURE).
  workerEnvironment: { HTTP_NODE_ALLOWED_HOSTS: '10.0.0.0/8', OUTBOUND_ALLOW_INSECURE: 'true', OPENAI_API_KEY: 'test-key' },
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));

// Unacknowledged cdk-nag findings make synthesis throw (the report is in the error).
let template: Template | undefined;
let synthError: unknown;
try {
  template = Template.fromStack(stack);
} catch (error) {
  synthError = error;
}
const tpl = (): Template => {
  assert.ok(template, `synthesis failed: ${String(synthError)}`);
  return template;
};

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation properties are whatever each resource type defines
type Resources = Record<string, { Type: string; Properties?: Record<string, any>; DependsOn?: string | string[]; DeletionPolicy?: string }>;
const resources = (): Resources => tpl().toJSON().Resources as Resources;
const logicalId = (element: CfnElement | undefined): string => {
  assert.ok(element, 'construct has no CloudFormation resource');
  return stack.resolve(element.logicalId) as string;
};
const functionOf = (id: string) => {
  const fn = stack.routeFunctions.get(id);
  assert.ok(fn, `no function for route ${id}`);
  return fn;
};
/** Every IAM action granted to a function's role (inline policies and attached AWS::IAM::Policy). */
interface Statement {
  Action: string | string[];
  Effect: string;
  Condition?: unknown;
}

/** The Allow statements of a function's role, inline and attached. */
const statementsOf = (fn: { role?: { node: { defaultChild?: unknown } } }): Statement[] => {
  const roleId = logicalId(fn.role?.node.defaultChild as CfnElement);
  const statements: Statement[] = [];
  const collect = (document: { Statement?: Statement[] }) => {
    for (const statement of document.Statement ?? []) if (statement.Effect === 'Allow') statements.push(statement);
  };
  const role = resources()[roleId];
  assert.equal(role?.Type, 'AWS::IAM::Role');
  assert.equal(role.Properties?.ManagedPolicyArns, undefined, 'function roles have no managed policies');
  for (const policy of role.Properties?.Policies ?? []) collect(policy.PolicyDocument);
  for (const resource of Object.values(resources())) {
    if (resource.Type !== 'AWS::IAM::Policy') continue;
    if ((resource.Properties?.Roles ?? []).some((r: { Ref?: string }) => r.Ref === roleId)) collect(resource.Properties!.PolicyDocument);
  }
  return statements;
};
const actionsOf = (fn: { role?: { node: { defaultChild?: unknown } } }): string[] => statementsOf(fn).flatMap((s) => [s.Action].flat());

test('synthesizes with cdk-nag AwsSolutions: no unacknowledged errors or warnings', () => {
  assert.equal(synthError, undefined, String(synthError));
  const report = new AwsSolutionsChecks(app).validateScope(app);
  assert.deepEqual(
    report.violations.map((v) => `${v.ruleName} ${v.severity} ${v.violatingResources.map((r) => r.constructPath).join(', ')}`),
    [],
  );
  const annotations = Annotations.fromStack(stack);
  assert.deepEqual(annotations.findError('*', Match.stringLikeRegexp('AwsSolutions-.*')), []);
  assert.deepEqual(annotations.findWarning('*', Match.stringLikeRegexp('AwsSolutions-.*')), []);
});

test('no circular dependencies between resources', () => {
  const all = resources();
  const edges = new Map<string, Set<string>>();
  const walk = (value: unknown, into: Set<string>): void => {
    if (Array.isArray(value)) for (const v of value) walk(v, into);
    else if (value && typeof value === 'object') {
      const object = value as Record<string, unknown>;
      if (typeof object.Ref === 'string' && object.Ref in all) into.add(object.Ref);
      const getAtt = object['Fn::GetAtt'];
      if (Array.isArray(getAtt) && typeof getAtt[0] === 'string') into.add(getAtt[0]);
      for (const v of Object.values(object)) walk(v, into);
    }
  };
  for (const [id, resource] of Object.entries(all)) {
    const into = new Set<string>([resource.DependsOn ?? []].flat());
    walk(resource.Properties, into);
    edges.set(id, into);
  }
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (id: string, path: string[]): void => {
    state.set(id, 'visiting');
    for (const next of edges.get(id) ?? []) {
      if (state.get(next) === 'visiting') assert.fail(`cycle: ${[...path, next].join(' -> ')}`);
      if (!state.has(next)) visit(next, [...path, next]);
    }
    state.set(id, 'done');
  };
  for (const id of edges.keys()) if (!state.has(id)) visit(id, [id]);
});

test('table: keys, GSIs, TTL, PITR, on-demand, retained, AWS-managed encryption', () => {
  const attributes = new Set<string>([TABLE_DEFINITION.partitionKey, TABLE_DEFINITION.sortKey]);
  for (const index of TABLE_DEFINITION.globalSecondaryIndexes) attributes.add(index.partitionKey).add(index.sortKey);
  tpl().resourceCountIs('AWS::DynamoDB::Table', 1);
  tpl().hasResource('AWS::DynamoDB::Table', {
    DeletionPolicy: 'Retain',
    UpdateReplacePolicy: 'Retain',
    Properties: {
      KeySchema: [
        { AttributeName: TABLE_DEFINITION.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE_DEFINITION.sortKey, KeyType: 'RANGE' },
      ],
      AttributeDefinitions: Match.arrayEquals([...attributes].map((name) => ({ AttributeName: name, AttributeType: 'S' }))),
      GlobalSecondaryIndexes: TABLE_DEFINITION.globalSecondaryIndexes.map((index) => ({
        IndexName: index.indexName,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
      TimeToLiveSpecification: { AttributeName: TABLE_DEFINITION.ttlAttribute, Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      BillingMode: 'PAY_PER_REQUEST',
      SSESpecification: { SSEEnabled: true },
    },
  });
});

test('one nodejs22.x arm64 function per HTTP route, plus one per stream, the worker and the dead-letter worker', () => {
  const functions = Object.values(resources()).filter((r) => r.Type === 'AWS::Lambda::Function');
  assert.equal(functions.length, httpRoutes.length + STREAM_ROUTES.length + 2);
  for (const fn of functions) {
    assert.equal(fn.Properties?.Runtime, 'nodejs22.x');
    assert.deepEqual(fn.Properties?.Architectures, ['arm64']);
    assert.equal(fn.Properties?.Handler, 'index.handler');
    assert.ok(fn.Properties?.LoggingConfig?.LogGroup, 'explicit log group');
    const env = fn.Properties?.Environment?.Variables as Record<string, unknown>;
    for (const name of ['TABLE_NAME', 'QUEUE_PREFIX', 'POWERTOOLS_SERVICE_NAME', queueUrlEnvName(TEST_QUEUE.name)]) assert.ok(env[name], `${name} set`);
    assert.equal(env.NODE_OPTIONS, '--enable-source-maps');
    // Every function may check that the OpenAI-compatible provider is configured; only workers get its key.
    assert.equal(env.OPENAI_CONFIGURED, 'true');
    assert.equal(
      env.OPENAI_API_KEY !== undefined,
      String(fn.Properties?.Description ?? '').startsWith('Worker for queue'),
      `${String(fn.Properties?.Description)}: OPENAI_API_KEY only on workers`,
    );
  }
  for (const route of httpRoutes) {
    tpl().hasResourceProperties('AWS::Lambda::Function', {
      Description: `${route.method} ${route.path}`,
      MemorySize: route.memoryMb ?? 256,
      Timeout: route.timeoutSeconds ?? 29,
      Environment: {
        Variables: Match.objectLike({
          BASE_URL: { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [logicalId(stack.distribution.node.defaultChild as CfnElement), 'DomainName'] }]] },
        }),
      },
    });
  }
  tpl().resourceCountIs('AWS::Logs::LogGroup', httpRoutes.length + STREAM_ROUTES.length + 2 + 1); // + API access logs
  tpl().allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
});

test('one HTTP API route per HTTP route, payload format 2.0, $default included', () => {
  tpl().resourceCountIs('AWS::ApiGatewayV2::Api', 1);
  tpl().resourceCountIs('AWS::ApiGatewayV2::Route', httpRoutes.length);
  tpl().resourceCountIs('AWS::ApiGatewayV2::Integration', httpRoutes.length);
  const all = resources();
  for (const route of httpRoutes) {
    const routeKey = route.path === '$default' ? '$default' : `${route.method} ${route.path}`;
    const found = Object.values(all).filter((r) => r.Type === 'AWS::ApiGatewayV2::Route' && r.Properties?.RouteKey === routeKey);
    assert.equal(found.length, 1, `one route ${routeKey}`);
    const target = JSON.stringify(found[0]!.Properties?.Target);
    const integrationId = Object.keys(all).find((id) => all[id]!.Type === 'AWS::ApiGatewayV2::Integration' && target.includes(id));
    assert.ok(integrationId, `integration of ${routeKey}`);
    const integration = all[integrationId]!.Properties!;
    assert.equal(integration.PayloadFormatVersion, '2.0');
    assert.equal(integration.IntegrationType, 'AWS_PROXY');
    assert.match(JSON.stringify(integration.IntegrationUri), new RegExp(`"${logicalId(functionOf(route.id).node.defaultChild as CfnElement)}"`));
  }
  assert.ok(httpRoutes.some((r) => r.path === '$default'));
  tpl().hasResourceProperties('AWS::ApiGatewayV2::Stage', {
    StageName: '$default',
    AutoDeploy: true,
    AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('requestId') },
  });
});

test('grants follow route.table exactly', () => {
  const read = ROUTES.find((r) => r.table === 'read' && !r.streaming);
  const none = ROUTES.find((r) => r.table === 'none' && !r.streaming);
  const readwrite = ROUTES.find((r) => r.table === 'readwrite' && !r.streaming);
  assert.ok(read && none && readwrite, 'ROUTES has read, none and readwrite routes');

  const readActions = actionsOf(functionOf(read.id));
  for (const action of ['dynamodb:GetItem', 'dynamodb:Query']) assert.ok(readActions.includes(action), `${read.id} may ${action}`);
  for (const action of ['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem']) {
    assert.ok(!readActions.includes(action), `${read.id} (read) may not ${action}`);
  }
  // An authenticated read writes its account's rate log, and nothing else: UpdateItem only on items under RATE#;
  // a public read (no account to count) may not update at all.
  const rateWrites = (fn: Parameters<typeof statementsOf>[0]) =>
    statementsOf(fn)
      .filter((s) => [s.Action].flat().includes('dynamodb:UpdateItem'))
      .map((s) => ({ action: s.Action, condition: s.Condition }));
  for (const route of ROUTES.filter((r) => r.table === 'read')) {
    const fn = route.streaming ? stack.streamFunctions.get(route.id)?.fn : functionOf(route.id);
    assert.ok(fn, `no function for ${route.id}`);
    assert.deepEqual(
      rateWrites(fn),
      route.auth === 'none'
        ? []
        : [{ action: 'dynamodb:UpdateItem', condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${keys.rateLog('').pk}*`] } } }],
      `${route.id} (read, auth ${route.auth})`,
    );
  }
  const noneActions = actionsOf(functionOf(none.id));
  assert.deepEqual(
    noneActions.filter((a) => a.startsWith('dynamodb:')),
    [],
    `${none.id} (none) has no dynamodb actions`,
  );
  const writeActions = actionsOf(functionOf(readwrite.id));
  for (const action of ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem']) {
    assert.ok(writeActions.includes(action), `${readwrite.id} (readwrite) may ${action}`);
  }
  // Everyone may write its own logs; only routes marked `sends` may enqueue.
  for (const actions of [readActions, noneActions, writeActions]) assert.ok(actions.includes('logs:PutLogEvents'));
  for (const route of ROUTES.filter((r) => !r.streaming)) {
    const sends = actionsOf(functionOf(route.id)).includes('sqs:SendMessage');
    assert.equal(sends, route.sends === true, `${route.id} ${route.sends ? 'must' : 'must not'} be able to send to the queues`);
  }
});

test('queue, DLQ, redrive, worker and dead-letter worker event sources', () => {
  const queue = stack.queues.get(TEST_QUEUE.name);
  assert.ok(queue?.deadLetterWorker);
  const dlqId = logicalId(queue.dlq.node.defaultChild as CfnElement);
  const queueId = logicalId(queue.queue.node.defaultChild as CfnElement);
  tpl().resourceCountIs('AWS::SQS::Queue', 2);
  tpl().hasResourceProperties('AWS::SQS::Queue', {
    QueueName: `${stack.stackName}-${TEST_QUEUE.name}`,
    VisibilityTimeout: TEST_QUEUE.visibilityTimeoutSeconds,
    SqsManagedSseEnabled: true,
    RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: TEST_QUEUE.maxReceiveCount },
  });
  tpl().hasResourceProperties('AWS::SQS::Queue', {
    QueueName: `${stack.stackName}-${TEST_QUEUE.name}-dlq`,
    MessageRetentionPeriod: 14 * 24 * 3600,
    SqsManagedSseEnabled: true,
  });
  // enforceSSL on both.
  for (const id of [queueId, dlqId]) {
    tpl().hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: id }],
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      },
    });
  }
  tpl().hasResourceProperties('AWS::Lambda::EventSourceMapping', {
    EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
    FunctionName: { Ref: logicalId(queue.worker.node.defaultChild as CfnElement) },
    BatchSize: TEST_QUEUE.batchSize,
    MaximumBatchingWindowInSeconds: TEST_QUEUE.maxBatchingWindowSeconds,
    FunctionResponseTypes: ['ReportBatchItemFailures'],
  });
  tpl().hasResourceProperties('AWS::Lambda::EventSourceMapping', {
    EventSourceArn: { 'Fn::GetAtt': [dlqId, 'Arn'] },
    FunctionName: { Ref: logicalId(queue.deadLetterWorker.node.defaultChild as CfnElement) },
    FunctionResponseTypes: ['ReportBatchItemFailures'],
  });
  tpl().hasResourceProperties('AWS::Lambda::Function', {
    Description: `Worker for queue ${TEST_QUEUE.name}`,
    Timeout: TEST_QUEUE.workerTimeoutSeconds,
    Environment: {
      Variables: Match.objectLike({
        [queueUrlEnvName(TEST_QUEUE.name)]: { Ref: queueId },
        OUTBOUND_ALLOWED_HOSTS: '10.0.0.0/8',
        OUTBOUND_ALLOW_INSECURE: 'true',
      }),
    },
  });
  const workerVariables = resources()[logicalId(queue.worker.node.defaultChild as CfnElement)]!.Properties?.Environment?.Variables as Record<string, unknown>;
  assert.equal(workerVariables.HTTP_NODE_ALLOWED_HOSTS, undefined, 'the stack sets the outbound settings under their own names');
  const workerActions = actionsOf(queue.worker);
  for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:SendMessage', 'dynamodb:PutItem', 'bedrock:InvokeModel']) {
    assert.ok(workerActions.includes(action), `worker may ${action}`);
  }
  assert.ok(!actionsOf(queue.deadLetterWorker!).includes('bedrock:InvokeModel'), 'only the worker invokes models');
});

test('worker environment: outbound settings under their own names, earlier names (aliases) accepted, the own name preferred', () => {
  assert.deepEqual(workerEnvironmentOf(undefined), {});
  assert.deepEqual(workerEnvironmentOf({ HTTP_NODE_ALLOWED_HOSTS: '10.0.0.0/8', HTTP_NODE_ALLOW_INSECURE: 'true', OPENAI_BASE_URL: 'https://llm' }), {
    OUTBOUND_ALLOWED_HOSTS: '10.0.0.0/8',
    OUTBOUND_ALLOW_INSECURE: 'true',
    OPENAI_BASE_URL: 'https://llm',
  });
  assert.deepEqual(
    workerEnvironmentOf({
      OUTBOUND_ALLOWED_HOSTS: 'new.internal',
      HTTP_NODE_ALLOWED_HOSTS: 'old.internal',
      OUTBOUND_ALLOW_INSECURE: 'false',
      HTTP_NODE_ALLOW_INSECURE: 'true',
    }),
    { OUTBOUND_ALLOWED_HOSTS: 'new.internal', OUTBOUND_ALLOW_INSECURE: 'false' },
  );
});

test('routes marked outbound (the harness tools listing, webhook endpoint URLs checked at create and update) get the outbound settings and nothing else of the workers’ environment', () => {
  assert.deepEqual(outboundEnvironmentOf({ HTTP_NODE_ALLOWED_HOSTS: '10.0.0.0/8', OPENAI_API_KEY: 'k' }), { OUTBOUND_ALLOWED_HOSTS: '10.0.0.0/8' });
  assert.deepEqual(outboundEnvironmentOf(undefined), {});
  const outbound = httpRoutes.filter((r) => r.outbound).map((r) => r.id);
  assert.deepEqual(outbound, ['HarnessesTools', 'WebhookEndpointsCreate', 'WebhookEndpointsUpdate']);
  for (const route of httpRoutes) {
    const variables = resources()[logicalId(functionOf(route.id).node.defaultChild as CfnElement)]!.Properties?.Environment?.Variables as Record<
      string,
      unknown
    >;
    const expected = route.outbound ? ['10.0.0.0/8', 'true'] : [undefined, undefined];
    assert.deepEqual([variables.OUTBOUND_ALLOWED_HOSTS, variables.OUTBOUND_ALLOW_INSECURE], expected, route.id);
    assert.equal(variables.OPENAI_API_KEY, undefined, route.id);
  }
});

test('a response-streaming function URL per streaming route, each served through CloudFront with the API', () => {
  assert.deepEqual(
    [...stack.streamFunctions.keys()],
    STREAM_ROUTES.map((r) => r.id),
  );
  tpl().resourceCountIs('AWS::Lambda::Url', STREAM_ROUTES.length);
  const distribution = Object.values(resources()).filter((r) => r.Type === 'AWS::CloudFront::Distribution');
  assert.equal(distribution.length, 1);
  const config = distribution[0]!.Properties!.DistributionConfig;
  const origins = config.Origins as Array<{ Id: string; DomainName: unknown }>;
  const apiOrigin = origins.find((o) => JSON.stringify(o.DomainName).includes(logicalId(stack.httpApi.node.defaultChild as CfnElement)));
  assert.ok(apiOrigin);
  const streamOrigins = new Map<string, string>();
  for (const route of STREAM_ROUTES) {
    const { fn, url } = stack.streamFunctions.get(route.id)!;
    const fnId = logicalId(fn.node.defaultChild as CfnElement);
    tpl().hasResourceProperties('AWS::Lambda::Url', { AuthType: 'NONE', InvokeMode: 'RESPONSE_STREAM', TargetFunctionArn: { 'Fn::GetAtt': [fnId, 'Arn'] } });
    const props = resources()[fnId]!.Properties!;
    // The streaming function cannot reference the distribution (cycle), so no BASE_URL without a baseUrl prop.
    assert.equal(props.Environment?.Variables?.BASE_URL, undefined, route.id);
    assert.equal(props.Timeout, route.timeoutSeconds ?? 900, route.id);
    const origin = origins.find((o) => JSON.stringify(o.DomainName).includes(logicalId(url.node.defaultChild as CfnElement)));
    assert.ok(origin, `origin of ${route.id}`);
    streamOrigins.set(cloudFrontPathPattern(route.path), origin.Id);
  }

  const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';
  const ALL_METHODS = ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'];
  assert.equal(config.DefaultCacheBehavior.TargetOriginId, apiOrigin.Id);
  assert.deepEqual([...config.DefaultCacheBehavior.AllowedMethods].sort(), [...ALL_METHODS].sort());
  assert.equal(config.DefaultCacheBehavior.OriginRequestPolicyId, ALL_VIEWER_EXCEPT_HOST_HEADER);
  const patterns = STREAM_ROUTES.map((r) => cloudFrontPathPattern(r.path));
  assert.deepEqual(patterns, ['/v1/workflow-requests/*/listen', '/v2/runs/*/events']);
  for (const pattern of patterns) {
    // biome-ignore lint/suspicious/noExplicitAny: a CloudFront behavior as synthesized, read field by field
    const behavior = (config.CacheBehaviors as Array<Record<string, any>>).find((b) => b.PathPattern === pattern);
    assert.ok(behavior, `behavior for ${pattern}`);
    assert.equal(behavior.TargetOriginId, streamOrigins.get(pattern));
    assert.equal(behavior.OriginRequestPolicyId, ALL_VIEWER_EXCEPT_HOST_HEADER);
    assert.deepEqual(behavior.CachePolicyId, config.DefaultCacheBehavior.CachePolicyId);
  }
  // Authorization reaches the origins only via the cache policy; TTLs keep it from caching.
  tpl().hasResourceProperties('AWS::CloudFront::CachePolicy', {
    CachePolicyConfig: {
      MinTTL: 0,
      DefaultTTL: 0,
      MaxTTL: 1,
      ParametersInCacheKeyAndForwardedToOrigin: Match.objectLike({
        HeadersConfig: { HeaderBehavior: 'whitelist', Headers: ['Authorization'] },
        QueryStringsConfig: { QueryStringBehavior: 'all' },
        CookiesConfig: { CookieBehavior: 'all' },
      }),
    },
  });
});

test('outputs: ApiUrl, BaseUrl, a StreamUrl per streaming route, TableName', () => {
  for (const name of ['ApiUrl', 'BaseUrl', ...STREAM_ROUTES.map((r) => `StreamUrl${r.id}`), 'TableName']) tpl().hasOutput(name, {});
  tpl().hasOutput('TableName', { Value: { Ref: logicalId(stack.table.node.defaultChild as CfnElement) } });
});
