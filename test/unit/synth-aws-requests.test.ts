import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { iamRequests, type RawRequest, type RequestScope } from '#local/synth/aws-requests.js';

const scope: RequestScope = {
  region: 'us-east-1',
  accountId: '000000000000',
  partitionKey: 'pk',
  indexPartitionKeys: { gsi1: 'gsi1pk' },
  secrets: [{ arn: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:service-key-AbCdEf', name: 'service-key' }],
};
const table = 'arn:aws:dynamodb:us-east-1:000000000000:table/svc-table';
const queue = 'arn:aws:sqs:us-east-1:000000000000:run-queue';
const queueUrl = 'http://127.0.0.1:4566/000000000000/run-queue';

const json = (target: string, body: object): RawRequest => ({
  method: 'POST',
  url: '/',
  headers: { 'x-amz-target': target },
  body: Buffer.from(JSON.stringify(body)),
});
const dynamo = (operation: string, body: object) => iamRequests('dynamodb', json(`DynamoDB_20120810.${operation}`, body), scope);
const sqs = (operation: string, body: object) => iamRequests('sqs', json(`AmazonSQS.${operation}`, body), scope);
const leadingKeys = (...keys: string[]) => ({ 'dynamodb:LeadingKeys': keys });

describe('iamRequests: DynamoDB (lib/local/synth/aws-requests.ts)', () => {
  test('single-item operations: the table ARN and the partition key touched', () => {
    assert.deepEqual(dynamo('GetItem', { TableName: 'svc-table', Key: { pk: { S: 'ACCOUNT#a1' }, sk: { S: 'RUN#1' } } }), [
      { action: 'dynamodb:GetItem', resource: table, context: leadingKeys('ACCOUNT#a1') },
    ]);
    assert.deepEqual(dynamo('PutItem', { TableName: 'svc-table', Item: { pk: { S: 'ACCOUNT#a2' }, sk: { S: 'x' } } }), [
      { action: 'dynamodb:PutItem', resource: table, context: leadingKeys('ACCOUNT#a2') },
    ]);
    assert.deepEqual(dynamo('UpdateItem', { TableName: table, Key: { pk: { N: '7' } } }), [
      { action: 'dynamodb:UpdateItem', resource: table, context: leadingKeys('7') },
    ]);
    assert.deepEqual(dynamo('DeleteItem', { TableName: 'svc-table', Key: { pk: { S: 'A' } } })[0]?.action, 'dynamodb:DeleteItem');
  });

  test('Query: the partition value of the key condition, through names and values, either side, or legacy KeyConditions', () => {
    const byName = dynamo('Query', {
      TableName: 'svc-table',
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
      ExpressionAttributeValues: { ':pk': { S: 'ACCOUNT#a1' }, ':prefix': { S: 'RUN#' } },
    });
    const reversed = dynamo('Query', {
      TableName: 'svc-table',
      KeyConditionExpression: 'sk >= :from AND :v=pk',
      ExpressionAttributeValues: { ':v': { S: 'ACCOUNT#a3' }, ':from': { S: 'a' } },
    });
    const legacy = dynamo('Query', { TableName: 'svc-table', KeyConditions: { pk: { ComparisonOperator: 'EQ', AttributeValueList: [{ S: 'ACCOUNT#a4' }] } } });

    assert.deepEqual(byName, [{ action: 'dynamodb:Query', resource: table, context: leadingKeys('ACCOUNT#a1') }]);
    assert.deepEqual(reversed[0]?.context, leadingKeys('ACCOUNT#a3'));
    assert.deepEqual(legacy[0]?.context, leadingKeys('ACCOUNT#a4'));
  });

  test('Query and Scan on an index: the index ARN; LeadingKeys from the index partition key; Scan has none', () => {
    const query = dynamo('Query', {
      TableName: 'svc-table',
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :owner',
      ExpressionAttributeValues: { ':owner': { S: 'OWNER#o1' } },
    });
    const scan = dynamo('Scan', { TableName: 'svc-table', IndexName: 'gsi1' });

    assert.deepEqual(query, [{ action: 'dynamodb:Query', resource: `${table}/index/gsi1`, context: leadingKeys('OWNER#o1') }]);
    assert.deepEqual(scan, [{ action: 'dynamodb:Scan', resource: `${table}/index/gsi1` }]);
  });

  test('batches: one request per table, with the keys of that table', () => {
    const gets = dynamo('BatchGetItem', {
      RequestItems: {
        'svc-table': { Keys: [{ pk: { S: 'A' } }, { pk: { S: 'B' } }, { pk: { S: 'A' } }] },
        other: { Keys: [{ pk: { S: 'C' } }] },
      },
    });
    const writes = dynamo('BatchWriteItem', {
      RequestItems: { 'svc-table': [{ PutRequest: { Item: { pk: { S: 'A' }, v: { S: '1' } } } }, { DeleteRequest: { Key: { pk: { S: 'B' } } } }] },
    });

    assert.deepEqual(gets, [
      { action: 'dynamodb:BatchGetItem', resource: table, context: leadingKeys('A', 'B') },
      { action: 'dynamodb:BatchGetItem', resource: 'arn:aws:dynamodb:us-east-1:000000000000:table/other', context: leadingKeys('C') },
    ]);
    assert.deepEqual(writes, [{ action: 'dynamodb:BatchWriteItem', resource: table, context: leadingKeys('A', 'B') }]);
  });

  test('transactions: one request per item, authorized as the item kind', () => {
    const writes = dynamo('TransactWriteItems', {
      TransactItems: [
        { Put: { TableName: 'svc-table', Item: { pk: { S: 'P' } } } },
        { Update: { TableName: 'svc-table', Key: { pk: { S: 'U' } }, UpdateExpression: 'SET a = :a' } },
        { Delete: { TableName: 'svc-table', Key: { pk: { S: 'D' } } } },
        { ConditionCheck: { TableName: 'svc-table', Key: { pk: { S: 'C' } }, ConditionExpression: 'attribute_exists(pk)' } },
      ],
    });
    const gets = dynamo('TransactGetItems', { TransactItems: [{ Get: { TableName: 'svc-table', Key: { pk: { S: 'G' } } } }] });

    assert.deepEqual(
      writes.map((request) => [request.action, request.context?.['dynamodb:LeadingKeys']]),
      [
        ['dynamodb:PutItem', ['P']],
        ['dynamodb:UpdateItem', ['U']],
        ['dynamodb:DeleteItem', ['D']],
        ['dynamodb:ConditionCheckItem', ['C']],
      ],
    );
    assert.deepEqual(gets, [{ action: 'dynamodb:GetItem', resource: table, context: leadingKeys('G') }]);
  });

  test('table-level and account-level operations', () => {
    assert.deepEqual(dynamo('DescribeTable', { TableName: 'svc-table' }), [{ action: 'dynamodb:DescribeTable', resource: table }]);
    assert.deepEqual(dynamo('ListTables', {}), [{ action: 'dynamodb:ListTables', resource: '*' }]);
  });
});

describe('iamRequests: SQS (lib/local/synth/aws-requests.ts)', () => {
  test('JSON protocol: the queue ARN from the URL; batches authorized as their single operation', () => {
    assert.deepEqual(sqs('SendMessage', { QueueUrl: queueUrl, MessageBody: 'x' }), [{ action: 'sqs:SendMessage', resource: queue }]);
    assert.deepEqual(sqs('SendMessageBatch', { QueueUrl: queueUrl, Entries: [] }), [{ action: 'sqs:SendMessage', resource: queue }]);
    assert.deepEqual(sqs('DeleteMessageBatch', { QueueUrl: queueUrl, Entries: [] })[0]?.action, 'sqs:DeleteMessage');
    assert.deepEqual(sqs('ChangeMessageVisibilityBatch', { QueueUrl: queueUrl, Entries: [] })[0]?.action, 'sqs:ChangeMessageVisibility');
    assert.deepEqual(sqs('ReceiveMessage', { QueueUrl: `${queueUrl}/` }), [{ action: 'sqs:ReceiveMessage', resource: queue }]);
  });

  test('GetQueueUrl by name, ListQueues on *', () => {
    assert.deepEqual(sqs('GetQueueUrl', { QueueName: 'run-queue' }), [{ action: 'sqs:GetQueueUrl', resource: queue }]);
    assert.deepEqual(sqs('ListQueues', {}), [{ action: 'sqs:ListQueues', resource: '*' }]);
  });

  test('query protocol: the form body, or the query string of a GET', () => {
    const form = new URLSearchParams({ Action: 'DeleteMessageBatch', QueueUrl: queueUrl, Version: '2012-11-05' });
    const post: RawRequest = { method: 'POST', url: '/', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: Buffer.from(form.toString()) };
    const get: RawRequest = { method: 'GET', url: `/?Action=ReceiveMessage&QueueUrl=${encodeURIComponent(queueUrl)}`, headers: {}, body: Buffer.alloc(0) };

    assert.deepEqual(iamRequests('sqs', post, scope), [{ action: 'sqs:DeleteMessage', resource: queue }]);
    assert.deepEqual(iamRequests('sqs', get, scope), [{ action: 'sqs:ReceiveMessage', resource: queue }]);
  });
});

describe('iamRequests: Secrets Manager (lib/local/synth/aws-requests.ts)', () => {
  const secrets = (body: object) => iamRequests('secretsmanager', json('secretsmanager.GetSecretValue', body), scope);

  test('the secret ARN, given or found by name', () => {
    const arn = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:service-key-AbCdEf';

    assert.deepEqual(secrets({ SecretId: arn }), [{ action: 'secretsmanager:GetSecretValue', resource: arn }]);
    assert.deepEqual(secrets({ SecretId: 'service-key' }), [{ action: 'secretsmanager:GetSecretValue', resource: arn }]);
    assert.deepEqual(secrets({ SecretId: 'unknown' })[0]?.resource, 'arn:aws:secretsmanager:us-east-1:000000000000:secret:unknown');
  });
});
