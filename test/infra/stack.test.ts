import assert from 'node:assert/strict';
import { inject, test } from 'vitest';
import { FEATURE_LAYOUT, ROUTES } from '#app/routes.js';
import { queueUrlVariable } from '#platform/queues.js';
import { TABLE_DEFINITION } from '#platform/table/definition.js';
import { keys } from '#platform/table/keys.js';
import { RESOURCE_BUDGET, resourceCounts } from '../../infra/resource-report.js';
import { cloudFrontPathPattern } from '../../infra/stack.js';
import { type AssemblyStack, type Resource, readStacks, resourcesOfType, roleOf, roleStatements } from './assembly.js';

// The real app as `cdk synth` builds it (test/infra/global-setup.ts): every route, queue and feature.
const dir = inject('assemblyDir');
const stacks = readStacks(dir);
const root = stacks[0]!;
const nested = stacks.slice(1);
const httpRoutes = ROUTES.filter((r) => !r.streaming);
const streamRoutes = ROUTES.filter((r) => r.streaming);
const queues = FEATURE_LAYOUT.flatMap((f) => f.queues);
const pascal = (name: string) => name.replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase());
const stackOf = (name: string): AssemblyStack => {
  const found = stacks.find((s) => s.name === name);
  assert.ok(found, `no nested stack ${name}`);
  return found;
};
/** The function resource with this description, in whichever stack holds it. */
const functionByDescription = (description: string): { stack: AssemblyStack; id: string; fn: Resource } => {
  for (const stack of stacks) {
    for (const [id, fn] of resourcesOfType(stack, 'AWS::Lambda::Function')) if (fn.Properties?.Description === description) return { stack, id, fn };
  }
  assert.fail(`no function described ${description}`);
};
const actionsOf = (stack: AssemblyStack, fn: Resource): string[] => roleStatements(stack, roleOf(fn)).flatMap((s) => [s.Action].flat());

test(`every stack holds at most ${RESOURCE_BUDGET} resources, and twice today's routes and queues would still fit`, () => {
  const counts = resourceCounts(dir);
  assert.equal(counts.length, stacks.length);
  console.log(`Resources per stack (budget ${RESOURCE_BUDGET}):\n${counts.map((c) => `  ${c.stack.padEnd(32)} ${c.resources}`).join('\n')}`);
  for (const { stack, resources } of counts) assert.ok(resources <= RESOURCE_BUDGET, `${stack}: ${resources} resources`);
  // A feature's stack grows with its routes and queues: twice each is at most twice its count.
  for (const { stack, resources } of counts.slice(1)) assert.ok(2 * resources <= RESOURCE_BUDGET, `${stack} doubled: ${2 * resources}`);
  // The root grows by 6 a queue (queue, dead-letter queue, their two policies, two alarms) and 1 a feature.
  const rootCount = counts[0]!.resources;
  const doubled = rootCount + 6 * queues.length + nested.length;
  assert.ok(doubled <= RESOURCE_BUDGET, `root doubled: ${doubled}`);
  const perQueue = ['AWS::SQS::Queue', 'AWS::SQS::QueuePolicy'].reduce((n, t) => n + (counts[0]!.types[t] ?? 0), 0);
  assert.equal(perQueue, 4 * queues.length, 'two queues and two policies a queue');
});

test('one nested stack per feature with routes or queues, and one for the streams; no export, no import, parameters within CloudFormation’s limit', () => {
  const expected = ['Streams', ...FEATURE_LAYOUT.filter((f) => f.routes.some((r) => !r.streaming) || f.queues.length).map((f) => pascal(f.name))];
  assert.deepEqual(nested.map((s) => s.name).sort(), expected.sort());
  for (const stack of stacks) {
    const text = JSON.stringify(stack.template);
    assert.ok(!text.includes('Fn::ImportValue'), `${stack.name} imports`);
    for (const [name, output] of Object.entries(stack.template.Outputs ?? {})) assert.equal(output.Export, undefined, `${stack.name} exports ${name}`);
    assert.ok(Object.keys(stack.template.Parameters ?? {}).length <= 200, `${stack.name} parameters`);
    assert.ok(Object.keys(stack.template.Outputs ?? {}).length <= 200, `${stack.name} outputs`);
  }
});

test('table: keys, GSIs, TTL, PITR, on-demand, retained, AWS-managed encryption, in the root', () => {
  const tables = resourcesOfType(root, 'AWS::DynamoDB::Table');
  assert.equal(tables.length, 1);
  for (const stack of nested) assert.equal(resourcesOfType(stack, 'AWS::DynamoDB::Table').length, 0);
  const [, table] = tables[0]!;
  assert.equal(table.DeletionPolicy, 'Retain');
  const p = table.Properties!;
  assert.deepEqual(p.KeySchema, [
    { AttributeName: TABLE_DEFINITION.partitionKey, KeyType: 'HASH' },
    { AttributeName: TABLE_DEFINITION.sortKey, KeyType: 'RANGE' },
  ]);
  assert.deepEqual(
    p.GlobalSecondaryIndexes.map((i: { IndexName: string }) => i.IndexName),
    TABLE_DEFINITION.globalSecondaryIndexes.map((i) => i.indexName),
  );
  assert.deepEqual(p.TimeToLiveSpecification, { AttributeName: TABLE_DEFINITION.ttlAttribute, Enabled: true });
  assert.deepEqual(p.PointInTimeRecoverySpecification, { PointInTimeRecoveryEnabled: true });
  assert.equal(p.BillingMode, 'PAY_PER_REQUEST');
});

test('a nodejs22.x arm64 function per HTTP route, stream, worker and dead-letter worker, each with its log group', () => {
  const functions = stacks.flatMap((s) => resourcesOfType(s, 'AWS::Lambda::Function').map(([, fn]) => fn));
  const workers = queues.length + queues.filter((q) => q.deadLetterWorker).length;
  assert.equal(functions.length, httpRoutes.length + streamRoutes.length + workers);
  for (const fn of functions) {
    assert.equal(fn.Properties?.Runtime, 'nodejs22.x');
    assert.deepEqual(fn.Properties?.Architectures, ['arm64']);
    assert.equal(fn.Properties?.Handler, 'index.handler');
    assert.ok(fn.Properties?.LoggingConfig?.LogGroup, 'explicit log group');
    const env = fn.Properties?.Environment?.Variables as Record<string, unknown>;
    for (const name of ['TABLE_NAME', 'QUEUE_PREFIX', 'POWERTOOLS_SERVICE_NAME', ...queues.map((q) => queueUrlVariable(q.name))])
      assert.ok(env[name], `${name} set`);
    assert.equal(env.NODE_OPTIONS, '--enable-source-maps');
    assert.equal(env.OPENAI_API_KEY, undefined, 'no key in any environment');
  }
  const logGroups = stacks.reduce((n, s) => n + resourcesOfType(s, 'AWS::Logs::LogGroup').length, 0);
  assert.equal(logGroups, functions.length + 1, 'one per function, and the API access logs');
  for (const route of httpRoutes) {
    const { fn } = functionByDescription(`${route.method} ${route.path}`);
    assert.equal(fn.Properties?.MemorySize, route.memoryMb ?? 256, route.id);
    assert.equal(fn.Properties?.Timeout, route.timeoutSeconds ?? 29, route.id);
    assert.match(JSON.stringify(fn.Properties?.Environment?.Variables?.BASE_URL), /DistributionDomainName|Distribution.*DomainName/, route.id);
  }
});

test('one HTTP API route per HTTP route in its feature’s stack, payload format 2.0, $default included', () => {
  assert.equal(resourcesOfType(root, 'AWS::ApiGatewayV2::Api').length, 1);
  const routes = nested.flatMap((s) => resourcesOfType(s, 'AWS::ApiGatewayV2::Route').map(([, r]) => ({ stack: s, r })));
  assert.equal(routes.length, httpRoutes.length);
  for (const feature of FEATURE_LAYOUT) {
    for (const route of feature.routes.filter((r) => !r.streaming)) {
      const stack = stackOf(pascal(feature.name));
      const routeKey = route.path === '$default' ? '$default' : `${route.method} ${route.path}`;
      const found = resourcesOfType(stack, 'AWS::ApiGatewayV2::Route').filter(([, r]) => r.Properties?.RouteKey === routeKey);
      assert.equal(found.length, 1, `${feature.name}: one route ${routeKey}`);
      const target = JSON.stringify(found[0]![1].Properties?.Target);
      const integration = resourcesOfType(stack, 'AWS::ApiGatewayV2::Integration').find(([id]) => target.includes(id));
      assert.ok(integration, `integration of ${routeKey}`);
      assert.equal(integration[1].Properties?.PayloadFormatVersion, '2.0');
      const { id: fnId, stack: fnStack } = functionByDescription(`${route.method} ${route.path}`);
      assert.equal(fnStack, stack);
      assert.match(JSON.stringify(integration[1].Properties?.IntegrationUri), new RegExp(`"${fnId}"`));
    }
  }
  assert.ok(httpRoutes.some((r) => r.path === '$default'));
});

test('grants follow each contract exactly, and functions with the same access share one role', () => {
  for (const route of ROUTES) {
    const description = route.streaming ? `Response-streaming function for ${route.method} ${route.path}` : `${route.method} ${route.path}`;
    const { stack, fn } = functionByDescription(description);
    const actions = actionsOf(stack, fn);
    const has = (action: string) => actions.includes(action);
    assert.equal(has('dynamodb:GetItem'), route.table !== 'none', `${route.id} reads`);
    assert.equal(has('dynamodb:PutItem'), route.table === 'readwrite', `${route.id} writes`);
    assert.equal(has('sqs:SendMessage'), route.sends === true, `${route.id} sends`);
    assert.equal(has('secretsmanager:GetSecretValue'), route.serviceKey === true, `${route.id} reads the service key`);
    assert.equal(has('bedrock:InvokeModel'), false, `${route.id} invokes no model`);
    assert.ok(has('logs:PutLogEvents'), `${route.id} writes its logs`);
    const rateWrites = roleStatements(stack, roleOf(fn)).filter((s) => [s.Action].flat().includes('dynamodb:UpdateItem') && s.Condition);
    const limited = route.table === 'read' && route.auth !== 'none';
    assert.deepEqual(
      rateWrites.map((s) => s.Condition),
      limited ? [{ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${keys.rateLog('').pk}*`] } }] : [],
      `${route.id}: the rate log only`,
    );
  }
  for (const stack of nested) {
    const roles = resourcesOfType(stack, 'AWS::IAM::Role').map(([id]) => id);
    const fns = resourcesOfType(stack, 'AWS::Lambda::Function');
    const grants = roles.map((id) =>
      JSON.stringify(
        roleStatements(stack, id)
          .filter((s) => ![s.Action].flat().some((a) => a.startsWith('logs:')))
          .map((s) => [[s.Action].flat().sort(), s.Resource, s.Condition]),
      ),
    );
    assert.equal(new Set(grants).size, roles.length, `${stack.name}: two roles with the same access`);
    assert.ok(roles.length <= fns.length, `${stack.name}: roles are shared`);
  }
});

test('queues and dead-letter queues in the root; workers, dead-letter workers and their event sources in the feature’s stack', () => {
  assert.equal(resourcesOfType(root, 'AWS::SQS::Queue').length, 2 * queues.length);
  for (const feature of FEATURE_LAYOUT) {
    for (const q of feature.queues) {
      const [queueId, queue] = resourcesOfType(root, 'AWS::SQS::Queue').find(([, r]) => r.Properties?.QueueName === `WorkflowService-${q.name}`)!;
      const [dlqId] = resourcesOfType(root, 'AWS::SQS::Queue').find(([, r]) => r.Properties?.QueueName === `WorkflowService-${q.name}-dlq`)!;
      assert.equal(queue.Properties?.VisibilityTimeout, q.visibilityTimeoutSeconds);
      assert.deepEqual(queue.Properties?.RedrivePolicy, { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: q.maxReceiveCount });
      assert.equal(queue.Properties?.SqsManagedSseEnabled, true);
      for (const id of [queueId, dlqId]) {
        const policy = resourcesOfType(root, 'AWS::SQS::QueuePolicy').find(([, r]) => JSON.stringify(r.Properties?.Queues) === JSON.stringify([{ Ref: id }]));
        assert.match(JSON.stringify(policy?.[1].Properties?.PolicyDocument), /aws:SecureTransport/);
      }
      const stack = stackOf(pascal(feature.name));
      const { id: workerId, fn: worker } = functionByDescription(`Worker for queue ${q.name}`);
      const mapping = resourcesOfType(stack, 'AWS::Lambda::EventSourceMapping').find(([, r]) => r.Properties?.FunctionName?.Ref === workerId);
      assert.ok(mapping, `event source of ${q.name}`);
      assert.equal(mapping[1].Properties?.BatchSize, q.batchSize);
      assert.equal(mapping[1].Properties?.MaximumBatchingWindowInSeconds ?? 0, q.maxBatchingWindowSeconds);
      assert.deepEqual(mapping[1].Properties?.FunctionResponseTypes, ['ReportBatchItemFailures']);
      assert.equal(worker.Properties?.Timeout, q.workerTimeoutSeconds);
      const actions = actionsOf(stack, worker);
      for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:SendMessage'])
        assert.ok(actions.includes(action), `${q.name} worker may ${action}`);
      assert.equal(actions.includes('bedrock:InvokeModel'), q.invokesModels === true, `${q.name}: models`);
      assert.equal(actions.includes('bedrock:InvokeModelWithResponseStream'), q.invokesModels === true, `${q.name}: models, streamed`);
      if (q.deadLetterWorker) {
        const { fn: dead } = functionByDescription(`Dead-letter worker for queue ${q.name}`);
        assert.ok(!actionsOf(stack, dead).some((action) => action.startsWith('bedrock:')), 'only the worker invokes models');
      }
    }
  }
});

test('a response-streaming function URL per streaming route, served by CloudFront beside the API', () => {
  const streams = stackOf('Streams');
  assert.equal(resourcesOfType(streams, 'AWS::Lambda::Url').length, streamRoutes.length);
  for (const [, url] of resourcesOfType(streams, 'AWS::Lambda::Url')) {
    assert.equal(url.Properties?.AuthType, 'NONE');
    assert.equal(url.Properties?.InvokeMode, 'RESPONSE_STREAM');
  }
  for (const route of streamRoutes) {
    const { fn, stack } = functionByDescription(`Response-streaming function for ${route.method} ${route.path}`);
    assert.equal(stack, streams);
    assert.equal(fn.Properties?.Timeout, route.timeoutSeconds ?? 900);
    // A streaming function cannot reference the distribution (cycle): no BASE_URL without the baseUrl context.
    assert.equal(fn.Properties?.Environment?.Variables?.BASE_URL, undefined);
  }
  const [, distribution] = resourcesOfType(root, 'AWS::CloudFront::Distribution')[0]!;
  const config = distribution.Properties!.DistributionConfig;
  const streamBehaviors = (config.CacheBehaviors as { PathPattern: string; TargetOriginId: string }[]).filter((b) => b.PathPattern !== '/assets/*');
  const patterns = streamBehaviors.map((b) => b.PathPattern).sort();
  assert.deepEqual(patterns, streamRoutes.map((r) => cloudFrontPathPattern(r.path)).sort());
  for (const behavior of streamBehaviors) {
    const origin = (config.Origins as { Id: string; DomainName: unknown }[]).find((o) => o.Id === behavior.TargetOriginId);
    assert.match(JSON.stringify(origin?.DomainName), /Streams.*Outputs/, 'a stream origin is a URL of the Streams stack');
  }
});

test('alarms: dead letters and the oldest message of every queue, the API’s 5xx rate, every function’s errors and throttles; a dashboard; a topic', () => {
  const alarms = stacks.flatMap((s) => resourcesOfType(s, 'AWS::CloudWatch::Alarm').map(([id, r]) => ({ stack: s, id, r })));
  const rootAlarms = alarms.filter((a) => a.stack === root).map((a) => JSON.stringify(a.r.Properties));
  for (const q of queues) {
    assert.ok(
      rootAlarms.some((a) => a.includes('ApproximateNumberOfMessagesVisible') && a.includes(`${q.name.replace(/-/g, '')}Dlq`)),
      `${q.name}: dead letters`,
    );
    assert.ok(
      rootAlarms.some((a) => a.includes('ApproximateAgeOfOldestMessage') && a.includes(`${q.name.replace(/-/g, '')}Queue`)),
      `${q.name}: oldest message`,
    );
  }
  assert.ok(rootAlarms.some((a) => a.includes('5xx')));
  for (const stack of nested) {
    const watched = alarms
      .filter((a) => a.stack === stack)
      .map((a) => JSON.stringify(a.r.Properties))
      .join();
    for (const [id] of resourcesOfType(stack, 'AWS::Lambda::Function')) {
      assert.ok(watched.includes(`"Ref":"${id}"`), `${stack.name}/${id} is watched`);
    }
  }
  for (const { r } of alarms) assert.ok((r.Properties?.AlarmActions ?? []).length === 1, 'every alarm notifies the topic');
  assert.equal(resourcesOfType(root, 'AWS::CloudWatch::Dashboard').length, 1);
  assert.equal(resourcesOfType(root, 'AWS::SNS::Topic').length, 1);
});

test('outputs: ApiUrl, BaseUrl, a StreamUrl per streaming route, TableName, AlarmTopicArn', () => {
  const outputs = Object.keys(root.template.Outputs ?? {});
  for (const name of ['ApiUrl', 'BaseUrl', ...streamRoutes.map((r) => `StreamUrl${r.id}`), 'TableName', 'AlarmTopicArn'])
    assert.ok(outputs.includes(name), name);
});

test('the operator’s outbound settings (context) reach the workers and the routes marked outbound, and no other function', () => {
  for (const stack of nested) {
    for (const [, fn] of resourcesOfType(stack, 'AWS::Lambda::Function')) {
      const description = String(fn.Properties?.Description);
      const route = ROUTES.find((r) => description === `${r.method} ${r.path}`);
      const expected = description.startsWith('Worker for queue') || route?.outbound === true;
      const env = fn.Properties?.Environment?.Variables as Record<string, unknown>;
      assert.deepEqual([env.OUTBOUND_ALLOWED_HOSTS, env.OUTBOUND_ALLOW_INSECURE], expected ? ['127.0.0.1', 'true'] : [undefined, undefined], description);
    }
  }
});
