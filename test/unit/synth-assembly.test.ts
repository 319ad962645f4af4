import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type CfnElement, Duration, Fn, NestedStack, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { HttpApi, HttpMethod, HttpRoute, HttpRouteKey } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { afterAll, describe, test } from 'vitest';
import { readAssembly } from '#local/synth/assembly.js';
import { type Json, Resolver, type Scope } from '#local/synth/intrinsics.js';
import type { LocalBindings } from '#local/synth/model.js';

const bindings: LocalBindings = {
  region: 'eu-west-1',
  accountId: '000000000000',
  tableName: 'local-table',
  queueUrl: (name) => `http://127.0.0.1:9324/000000000000/${name}`,
  baseUrl: 'http://127.0.0.1:3000',
};
const tableArn = 'arn:aws:dynamodb:eu-west-1:000000000000:table/local-table';

const tempDirs: string[] = [];
const tempDir = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * The service's layout in small: table, queues, secret, HTTP API and
 * distribution in the root stack; the function, its route, queue trigger and
 * streaming URL in a nested stack. Synthesized as `cdk synth` does (the CLI
 * turns on path and asset metadata).
 */
function synthesize(context: Record<string, boolean> = { 'aws:cdk:enable-path-metadata': true, 'aws:cdk:enable-asset-metadata': true }) {
  const code = tempDir('synth-code-');
  writeFileSync(join(code, 'index.mjs'), 'export const handler = async () => ({ statusCode: 200 });\n');
  const outdir = tempDir('synth-assembly-');
  const app = new App({ outdir, context });
  const root = new Stack(app, 'Svc');
  const table = new dynamodb.Table(root, 'Table', { partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING } });
  table.addGlobalSecondaryIndex({ indexName: 'byOwner', partitionKey: { name: 'owner', type: dynamodb.AttributeType.STRING } });
  const dlq = new sqs.Queue(root, 'WorkDlq', { queueName: 'Svc-work-dlq' });
  const queue = new sqs.Queue(root, 'WorkQueue', {
    queueName: 'Svc-work',
    visibilityTimeout: Duration.seconds(120),
    deadLetterQueue: { queue: dlq, maxReceiveCount: 4 },
  });
  const secret = new secretsmanager.Secret(root, 'ServiceKey', { generateSecretString: { passwordLength: 64, excludePunctuation: true } });
  const api = new HttpApi(root, 'HttpApi');

  const runs = new NestedStack(root, 'Runs');
  const fn = new lambda.Function(runs, 'RunsCreate', {
    runtime: lambda.Runtime.NODEJS_22_X,
    architecture: lambda.Architecture.ARM_64,
    handler: 'index.handler',
    code: lambda.Code.fromAsset(code),
    timeout: Duration.seconds(29),
    environment: { TABLE_NAME: table.tableName, QUEUE_URL: queue.queueUrl, SECRET_ARN: secret.secretArn },
  });
  table.grantReadData(fn);
  queue.grantSendMessages(fn);
  fn.addEventSource(new SqsEventSource(queue, { batchSize: 5, maxBatchingWindow: Duration.seconds(2), reportBatchItemFailures: true }));
  new HttpRoute(runs, 'RunsCreateRoute', {
    httpApi: api,
    routeKey: HttpRouteKey.with('/v1/runs/{id}', HttpMethod.POST),
    integration: new HttpLambdaIntegration('RunsCreateIntegration', fn),
  });
  const url = fn.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE, invokeMode: lambda.InvokeMode.RESPONSE_STREAM });

  const distribution = new cloudfront.Distribution(root, 'Distribution', {
    defaultBehavior: { origin: new origins.HttpOrigin(Fn.select(2, Fn.split('/', api.apiEndpoint))) },
  });
  distribution.addBehavior('/v1/runs/*/events', new origins.FunctionUrlOrigin(url));
  app.synth();
  const resourceCount = (stack: Stack) => Object.keys(Template.fromStack(stack).toJSON().Resources as object).length;
  return {
    outdir,
    tableLogicalId: root.getLogicalId(table.node.defaultChild as CfnElement),
    counts: { Svc: resourceCount(root), 'Svc/Runs': resourceCount(runs) },
  };
}

describe('readAssembly on a synthesized CDK app', () => {
  const synthesized = synthesize();
  const shape = readAssembly(synthesized.outdir, bindings);

  test('the function in the nested stack: code folder, settings and its environment bound to the local table, queue and secret', () => {
    assert.equal(shape.stackName, 'Svc');
    assert.equal(shape.functions.length, 1);
    const [fn] = shape.functions;
    assert.equal(fn?.id, 'Svc/Runs/RunsCreate');
    assert.equal(fn.functionName, 'Svc-Runs-RunsCreate');
    assert.ok(existsSync(join(fn.assetDir, 'index.mjs')), fn.assetDir);
    assert.deepEqual(
      { handler: fn.handler, runtime: fn.runtime, architecture: fn.architecture, timeout: fn.timeoutSeconds, memory: fn.memoryMb },
      { handler: 'index.handler', runtime: 'nodejs22.x', architecture: 'arm64', timeout: 29, memory: 128 },
    );
    assert.deepEqual(fn.environment, {
      TABLE_NAME: 'local-table',
      QUEUE_URL: 'http://127.0.0.1:9324/000000000000/Svc-work',
      SECRET_ARN: shape.secrets[0]?.arn,
    });
    assert.equal(shape.secrets[0]?.arn, `arn:aws:secretsmanager:eu-west-1:000000000000:secret:${shape.secrets[0]?.logicalId}-local`);
  });

  test("the role's statements are the grants, with the table's and queue's local ARNs", () => {
    const role = shape.functions[0]!.role;
    assert.equal(role.arn, `arn:aws:iam::000000000000:role/${role.name}`);
    const read = role.statements.find((s) => [s.Action].flat().includes('dynamodb:GetItem'));
    assert.deepEqual(read?.Resource, [tableArn, `${tableArn}/index/*`]);
    const send = role.statements.find((s) => [s.Action].flat().includes('sqs:SendMessage'));
    assert.equal(send?.Resource, 'arn:aws:sqs:eu-west-1:000000000000:Svc-work');
  });

  test('the route of the nested stack leads to the function; the URL gets the distribution behaviour that points at it', () => {
    assert.deepEqual(shape.routes, [{ method: 'POST', path: '/v1/runs/{id}', functionId: 'Svc/Runs/RunsCreate', payloadFormatVersion: '2.0' }]);
    assert.deepEqual(shape.functionUrls, [
      { functionId: 'Svc/Runs/RunsCreate', invokeMode: 'RESPONSE_STREAM', authType: 'NONE', pathPatterns: ['/v1/runs/*/events'] },
    ]);
  });

  test('queues with their redrive, the queue trigger with its settings, secret and table', () => {
    assert.deepEqual(
      shape.queues.map((q) => ({ name: q.name, visibility: q.visibilityTimeoutSeconds, redrive: q.redrive })),
      [
        { name: 'Svc-work-dlq', visibility: 30, redrive: undefined },
        { name: 'Svc-work', visibility: 120, redrive: { deadLetterQueueName: 'Svc-work-dlq', maxReceiveCount: 4 } },
      ],
    );
    assert.deepEqual(shape.eventSources, [
      { functionId: 'Svc/Runs/RunsCreate', queueName: 'Svc-work', batchSize: 5, maximumBatchingWindowSeconds: 2, reportBatchItemFailures: true, enabled: true },
    ]);
    assert.deepEqual(shape.secrets[0]?.generate, { passwordLength: 64, excludePunctuation: true });
    assert.deepEqual(shape.table, { logicalId: synthesized.tableLogicalId, name: 'local-table', arn: tableArn });
  });

  test('resource counts by stack, and nothing left unresolved', () => {
    assert.deepEqual(shape.resourceCounts, synthesized.counts);
    assert.deepEqual(shape.unresolved, []);
  });

  test('without asset metadata (cdk synth --no-asset-metadata) the asset manifests still find the nested template and the code', () => {
    const bare = readAssembly(synthesize({ 'aws:cdk:enable-path-metadata': true }).outdir, bindings);
    assert.ok(existsSync(join(bare.functions[0]!.assetDir, 'index.mjs')));
    assert.deepEqual(bare.functionUrls[0]?.pathPatterns, ['/v1/runs/*/events']);
    assert.deepEqual(bare.unresolved, []);
  });
});

describe('readAssembly on a hand-written assembly', () => {
  function assembly(templates: Record<string, object>): string {
    const dir = tempDir('synth-hand-');
    mkdirSync(join(dir, 'asset.code'));
    const artifacts = Object.fromEntries(
      Object.keys(templates).map((name) => [
        name,
        { type: 'aws:cloudformation:stack', displayName: name, properties: { templateFile: `${name}.template.json` } },
      ]),
    );
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ version: '55.0.0', artifacts }));
    for (const [name, template] of Object.entries(templates)) writeFileSync(join(dir, `${name}.template.json`), JSON.stringify(template));
    return dir;
  }
  const fn = (environment: Record<string, unknown>) => ({
    Type: 'AWS::Lambda::Function',
    Metadata: { 'aws:asset:path': 'asset.code' },
    Properties: { Handler: 'index.handler', Runtime: 'nodejs22.x', Role: 'arn:aws:iam::000000000000:role/outside', Environment: { Variables: environment } },
  });
  const table = { Type: 'AWS::DynamoDB::Table', Properties: {} };
  const dir = assembly({
    Producer: { Resources: { Table: table }, Outputs: { Shared: { Value: 'from-producer' } } },
    Consumer: {
      Parameters: { Stage: { Type: 'String', Default: 'dev' }, Key: { Type: 'String' }, Missing: { Type: 'String' } },
      Conditions: { IsProd: { 'Fn::Equals': [{ Ref: 'Stage' }, 'prod'] } },
      Resources: {
        Table: table,
        Jobs: { Type: 'AWS::SQS::Queue', Properties: {} },
        ProdOnly: { Type: 'AWS::SQS::Queue', Condition: 'IsProd', Properties: { QueueName: 'prod-only' } },
        Worker: fn({
          STAGE: { Ref: 'Stage' },
          KEY: { Ref: 'Key' },
          MISSING: { Ref: 'Missing' },
          JOBS: { 'Fn::GetAtt': ['Jobs', 'QueueName'] },
          SHARED: { 'Fn::GetStackOutput': { StackName: 'arn:aws:cloudformation:eu-west-1:000000000000:stack/Producer/*', OutputName: 'Shared' } },
          MODE: { 'Fn::If': ['IsProd', 'strict', { Ref: 'AWS::NoValue' }] },
        }),
      },
    },
  });

  test('parameters from the bindings or their defaults, conditions, derived names and another stack’s output', () => {
    const shape = readAssembly(dir, { ...bindings, parameters: { Key: 'k1' } }, { stackName: 'Consumer' });
    assert.deepEqual(shape.functions[0]?.environment, {
      STAGE: 'dev',
      KEY: 'k1',
      MISSING: '<unresolved Ref Missing>',
      JOBS: 'Consumer-Jobs',
      SHARED: 'from-producer',
    });
    assert.deepEqual(
      shape.queues.map((q) => q.name),
      ['Consumer-Jobs'],
    );
    assert.equal(shape.functions[0]?.functionName, 'Consumer-Worker');
    assert.deepEqual(shape.functions[0]?.role, { logicalId: '', name: 'outside', arn: 'arn:aws:iam::000000000000:role/outside', statements: [] });
    assert.deepEqual(shape.unresolved, ['Consumer:Worker.Properties.Environment.Variables.MISSING → Ref Missing']);
  });

  test('a parameter given as prod turns the condition on', () => {
    const shape = readAssembly(dir, { ...bindings, parameters: { Stage: 'prod', Key: 'k', Missing: 'm' } }, { stackName: 'Consumer' });
    assert.equal(shape.functions[0]?.environment.MODE, 'strict');
    assert.deepEqual(
      shape.queues.map((q) => q.name),
      ['Consumer-Jobs', 'prod-only'],
    );
    assert.deepEqual(shape.unresolved, []);
  });

  test('an assembly of two stacks needs a stack name', () => {
    assert.throws(() => readAssembly(dir, bindings), /has stacks Producer, Consumer: name one/);
  });
});

describe('the intrinsic resolver on template fragments', () => {
  const scope: Scope = {
    ref: (name) => ({ Env: 'prod', 'AWS::Region': 'eu-west-1', Bucket: 'my-bucket' })[name],
    getAtt: (logicalId, attribute) => (logicalId === 'Bucket' && attribute === 'Arn' ? 'arn:aws:s3:::my-bucket' : undefined),
    conditions: {
      IsProd: { 'Fn::Equals': [{ Ref: 'Env' }, 'prod'] },
      IsDev: { 'Fn::Not': [{ Condition: 'IsProd' }] },
      Either: { 'Fn::Or': [{ Condition: 'IsDev' }, { 'Fn::And': [{ Condition: 'IsProd' }, { 'Fn::Equals': ['a', 'a'] }] }] },
    },
  };
  const resolve = (value: Json) => {
    const reports: string[] = [];
    const out = new Resolver(scope, (where, what) => reports.push(`${where} → ${what}`)).resolve(value, 'T');
    return { out, reports };
  };

  test('Fn::Sub with a variables map, references, attributes and a literal', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Fn::Sub's own ${} syntax
    const { out, reports } = resolve({ 'Fn::Sub': ['${Name}-${Env}@${AWS::Region}:${Bucket.Arn}/${!Literal}', { Name: { Ref: 'Bucket' } }] });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${} that Fn::Sub writes out
    assert.equal(out, 'my-bucket-prod@eu-west-1:arn:aws:s3:::my-bucket/${Literal}');
    assert.deepEqual(reports, []);
  });

  test('Fn::Select of Fn::Split, Fn::Join', () => {
    assert.equal(resolve({ 'Fn::Select': [2, { 'Fn::Split': ['/', 'https://abc.lambda-url.on.aws/'] }] }).out, 'abc.lambda-url.on.aws');
    assert.equal(resolve({ 'Fn::Join': ['-', ['a', { Ref: 'Env' }, 3]] }).out, 'a-prod-3');
  });

  test('Fn::If on conditions (Fn::Equals, Fn::Not, Fn::Or, Fn::And, Condition); AWS::NoValue removes the key or element', () => {
    const { out } = resolve({
      mode: { 'Fn::If': ['IsProd', 'strict', 'loose'] },
      dev: { 'Fn::If': ['IsDev', 'yes', { Ref: 'AWS::NoValue' }] },
      list: ['a', { 'Fn::If': ['IsDev', 'b', { Ref: 'AWS::NoValue' }] }],
      either: { 'Fn::If': ['Either', 1, 2] },
    });
    assert.deepEqual(out, { mode: 'strict', list: ['a'], either: 1 });
  });

  test('what has no value becomes a placeholder, reported where it sits', () => {
    const { out, reports } = resolve({ a: { Ref: 'Nope' }, b: [{ 'Fn::GetAtt': 'Bucket.DomainName' }], c: { 'Fn::Select': [5, ['x']] } });
    assert.deepEqual(out, { a: '<unresolved Ref Nope>', b: ['<unresolved Fn::GetAtt Bucket.DomainName>'], c: '<unresolved Fn::Select (index out of range)>' });
    assert.deepEqual(reports, ['T.a → Ref Nope', 'T.b[0].Fn::GetAtt → Fn::GetAtt Bucket.DomainName', 'T.c.Fn::Select → Fn::Select (index out of range)']);
  });
});
