import assert from 'node:assert/strict';
import { DynamoDBClient, GetItemCommand, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { ListQueuesCommand, ReceiveMessageCommand, SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, describe, test } from 'vitest';
import type { Denial } from '#local/synth/caller-access.js';
import { type RunningEndpoint, startIamProxy } from '#local/synth/iam-proxy.js';
import { accountId, credentials, isAccessDenied, principals, queueArn, region, startFakeUpstream, tableArn } from '../helpers/synth-iam-fixtures.js';

describe('startIamProxy (lib/local/synth/iam-proxy.ts)', () => {
  let upstream: Awaited<ReturnType<typeof startFakeUpstream>>;
  const running: RunningEndpoint[] = [];
  const denials: Denial[] = [];
  beforeAll(async () => {
    upstream = await startFakeUpstream();
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((proxy) => proxy.stop()));
    upstream.seen.length = 0;
    denials.length = 0;
  });
  afterAll(() => upstream.stop());

  async function proxy(service: 'dynamodb' | 'sqs') {
    const started = await startIamProxy({
      service,
      upstream: upstream.endpoint,
      region,
      accountId,
      partitionKey: 'pk',
      principals,
      trustedKeys: ['local'],
      onDenied: (denial) => denials.push(denial),
    });
    running.push(started);
    return started.endpoint;
  }
  const dynamoDb = async (key: string) => new DynamoDBClient({ endpoint: await proxy('dynamodb'), region, credentials: credentials(key), maxAttempts: 1 });

  test('an allowed DynamoDB call reaches the upstream unchanged and its answer comes back', async () => {
    const client = await dynamoDb('AKIDREADER');

    const output = await client.send(new GetItemCommand({ TableName: 'svc-table', Key: { pk: { S: 'ACCOUNT#a1' }, sk: { S: 'META' } } }));

    assert.deepEqual(output.Item?.name, { S: 'from upstream' });
    assert.equal(output.$metadata.requestId, 'upstream-request');
    assert.equal(upstream.seen.length, 1);
    assert.equal(upstream.seen[0]?.headers['x-amz-target'], 'DynamoDB_20120810.GetItem');
    assert.match(String(upstream.seen[0]?.headers.authorization), /Credential=AKIDREADER\//);
    assert.deepEqual(JSON.parse(upstream.seen[0]?.body ?? ''), { TableName: 'svc-table', Key: { pk: { S: 'ACCOUNT#a1' }, sk: { S: 'META' } } });
    assert.deepEqual(denials, []);
  });

  test('a DynamoDB call the role does not allow raises AccessDeniedException and is reported, never forwarded', async () => {
    const client = await dynamoDb('AKIDREADER');

    await assert.rejects(
      client.send(new PutItemCommand({ TableName: 'svc-table', Item: { pk: { S: 'ACCOUNT#a1' }, sk: { S: 'META' } } })),
      isAccessDenied('dynamodb:PutItem', tableArn),
    );
    assert.equal(upstream.seen.length, 0);
    assert.deepEqual(denials, [{ functionName: 'RunsGet', action: 'dynamodb:PutItem', resource: tableArn, reason: 'implicitDeny' }]);
  });

  test('a LeadingKeys condition lets a Query on its own partition through and refuses another', async () => {
    const client = await dynamoDb('AKIDTENANT');
    const query = (account: string) =>
      client.send(new QueryCommand({ TableName: 'svc-table', KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: account } } }));

    await query('ACCOUNT#a1');
    await assert.rejects(query('ACCOUNT#a2'), isAccessDenied('dynamodb:Query', tableArn));

    assert.equal(upstream.seen.length, 1);
    assert.equal(denials[0]?.functionName, 'TenantRead');
  });

  test('an unknown access key is refused unless trusted', async () => {
    const endpoint = await proxy('dynamodb');
    const client = (key: string) => new DynamoDBClient({ endpoint, region, credentials: credentials(key), maxAttempts: 1 });
    const get = new GetItemCommand({ TableName: 'svc-table', Key: { pk: { S: 'x' } } });

    await client('local').send(get);
    await assert.rejects(client('AKIDSTRANGER').send(get), (error: Error) => error.name === 'AccessDeniedException');

    assert.equal(upstream.seen.length, 1);
    assert.equal(denials[0]?.reason, 'unknownAccessKey');
  });

  test('SQS over JSON: SendMessage and its batch pass, ReceiveMessage is refused as AccessDeniedException', async () => {
    const endpoint = await proxy('sqs');
    const client = new SQSClient({ endpoint, region, credentials: credentials('AKIDSENDER'), maxAttempts: 1 });
    const QueueUrl = `${endpoint}/${accountId}/run-queue`;

    const sent = await client.send(new SendMessageCommand({ QueueUrl, MessageBody: 'hello' }));
    await assert.rejects(client.send(new ReceiveMessageCommand({ QueueUrl })), isAccessDenied('sqs:ReceiveMessage', queueArn));
    await assert.rejects(
      client.send(new SendMessageBatchCommand({ QueueUrl: `${endpoint}/${accountId}/other-queue`, Entries: [{ Id: '1', MessageBody: 'x' }] })),
      isAccessDenied('sqs:SendMessage', `arn:aws:sqs:${region}:${accountId}:other-queue`),
    );

    assert.equal(sent.MessageId, 'm-1');
    assert.equal(upstream.seen.length, 1);
    assert.deepEqual(
      denials.map((denial) => [denial.functionName, denial.action]),
      [
        ['RunsCreate', 'sqs:ReceiveMessage'],
        ['RunsCreate', 'sqs:SendMessage'],
      ],
    );
  });

  test('SQS over the query protocol: refused with the XML AccessDenied error', async () => {
    const endpoint = await proxy('sqs');
    const form = new URLSearchParams({ Action: 'ReceiveMessage', QueueUrl: `${endpoint}/${accountId}/run-queue` });

    const answer = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: 'AWS4-HMAC-SHA256 Credential=AKIDSENDER/20260101/us-east-1/sqs/aws4_request',
      },
      body: form.toString(),
    });

    assert.equal(answer.status, 403);
    assert.match(
      await answer.text(),
      /<Code>AccessDenied<\/Code><Message>User: .*sqs:ReceiveMessage on resource: arn:aws:sqs:us-east-1:000000000000:run-queue/,
    );
  });
});

describe('DynamoDB and SQS clients find the proxies through AWS_ENDPOINT_URL_* and the function key through AWS_ACCESS_KEY_ID', () => {
  const names = [
    'AWS_ENDPOINT_URL_SECRETS_MANAGER',
    'AWS_ENDPOINT_URL_DYNAMODB',
    'AWS_ENDPOINT_URL_SQS',
    'AWS_ACCESS_KEY_ID',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_REGION',
  ] as const;
  const saved = Object.fromEntries(names.map((name) => [name, process.env[name]]));
  const stops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    await Promise.all(stops.map((stop) => stop()));
    for (const name of names) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  test('clients made without endpoint or credentials reach the proxies as the function', async () => {
    const denials: Denial[] = [];
    const upstream = await startFakeUpstream();
    const [proxy, sqsProxy] = await Promise.all(
      (['dynamodb', 'sqs'] as const).map((service) =>
        startIamProxy({ service, upstream: upstream.endpoint, region, accountId, partitionKey: 'pk', principals, onDenied: (denial) => denials.push(denial) }),
      ),
    );
    stops.push(upstream.stop, proxy!.stop, sqsProxy!.stop);
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_DYNAMODB: proxy!.endpoint,
      AWS_ENDPOINT_URL_SQS: sqsProxy!.endpoint,
      AWS_ACCESS_KEY_ID: 'AKIDSENDER',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_REGION: region,
    });

    await assert.rejects(new DynamoDBClient({ maxAttempts: 1 }).send(new GetItemCommand({ TableName: 'svc-table', Key: { pk: { S: 'x' } } })));
    // ListQueues names no queue URL, whose origin the SQS client would otherwise prefer to AWS_ENDPOINT_URL_SQS.
    await assert.rejects(new SQSClient({ maxAttempts: 1 }).send(new ListQueuesCommand({})));

    assert.deepEqual(denials, [
      { functionName: 'RunsCreate', action: 'dynamodb:GetItem', resource: tableArn, reason: 'implicitDeny' },
      { functionName: 'RunsCreate', action: 'sqs:ListQueues', resource: '*', reason: 'implicitDeny' },
    ]);
  });
});
