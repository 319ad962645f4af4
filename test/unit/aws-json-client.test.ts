import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { jsonClient } from '../../lib/aws/json-client.js';
import { AwsServiceError } from '../../lib/aws/service-error.js';

interface Sent {
  url: string;
  headers: Headers;
  body: unknown;
}

/** A fetch that records what it was sent and answers from a script, one answer per call. */
function scriptedFetch(answers: Array<Response | Error>) {
  const sent: Sent[] = [];
  const fetchFn = (async (input: Request) => {
    sent.push({ url: input.url, headers: input.headers, body: JSON.parse(await input.text()) });
    const next = answers.shift();
    if (!next) throw new Error('unexpected call');
    if (next instanceof Error) throw next;
    return next;
  }) as typeof fetch;
  return { sent, fetchFn };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/x-amz-json-1.0', ...headers } });

const credentials = async () => ({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'session' });

const client = (fetchFn: typeof fetch, maxAttempts = 3) =>
  jsonClient({ service: 'dynamodb', targetPrefix: 'DynamoDB_20120810', region: 'eu-west-1', credentials, fetch: fetchFn, maxAttempts });

describe('AWS JSON protocol client', () => {
  test('posts the input to the regional endpoint, names the operation, and signs with SigV4', async () => {
    const { sent, fetchFn } = scriptedFetch([json(200, { Item: { pk: { S: 'a' } } })]);
    const out = await client(fetchFn)('GetItem', { TableName: 't', Key: { pk: { S: 'a' } } });
    assert.deepEqual(out, { Item: { pk: { S: 'a' } } });
    assert.equal(sent[0]!.url, 'https://dynamodb.eu-west-1.amazonaws.com/');
    assert.equal(sent[0]!.headers.get('x-amz-target'), 'DynamoDB_20120810.GetItem');
    assert.equal(sent[0]!.headers.get('content-type'), 'application/x-amz-json-1.0');
    assert.match(sent[0]!.headers.get('authorization') ?? '', /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/dynamodb\/aws4_request, SignedHeaders=[^,]*x-amz-target[^,]*, Signature=[0-9a-f]{64}$/);
    assert.equal(sent[0]!.headers.get('x-amz-security-token'), 'session');
    assert.deepEqual(sent[0]!.body, { TableName: 't', Key: { pk: { S: 'a' } } });
  });

  test('an endpoint override is used as given (DynamoDB Local, fauxqs)', async () => {
    const { sent, fetchFn } = scriptedFetch([json(200, {})]);
    await jsonClient({ service: 'sqs', targetPrefix: 'AmazonSQS', region: 'us-east-1', endpoint: 'http://127.0.0.1:4566', credentials, fetch: fetchFn })('SendMessageBatch', {});
    assert.equal(sent[0]!.url, 'http://127.0.0.1:4566/');
    assert.equal(sent[0]!.headers.get('x-amz-target'), 'AmazonSQS.SendMessageBatch');
  });

  test('a service error becomes an error named for its type, carrying the answer’s fields, and is not retried', async () => {
    const { sent, fetchFn } = scriptedFetch([
      json(400, {
        __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
        message: 'Transaction cancelled',
        CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed' }],
      }),
    ]);
    const error = await client(fetchFn)('TransactWriteItems', {}).catch((e: unknown) => e);
    assert.ok(error instanceof AwsServiceError);
    assert.equal(error.name, 'TransactionCanceledException');
    assert.equal(error.message, 'Transaction cancelled');
    assert.equal(error.$status, 400);
    assert.deepEqual(error.CancellationReasons, [{ Code: 'None' }, { Code: 'ConditionalCheckFailed' }]);
    assert.equal(sent.length, 1);
  });

  test('throttling, 5xx and network failures are retried, then the call succeeds', async () => {
    const { sent, fetchFn } = scriptedFetch([
      json(400, { __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException', message: 'slow down' }),
      new TypeError('fetch failed'),
      json(200, { ok: true }),
    ]);
    assert.deepEqual(await client(fetchFn)('PutItem', {}), { ok: true });
    assert.equal(sent.length, 3);
  });

  test('retries stop at maxAttempts and the last error is thrown', async () => {
    const { sent, fetchFn } = scriptedFetch([json(500, { __type: 'InternalServerError' }), json(503, {}, { 'x-amzn-errortype': 'ServiceUnavailable:' }), json(200, {})]);
    const error = await client(fetchFn, 2)('Query', {}).catch((e: unknown) => e);
    assert.ok(error instanceof AwsServiceError);
    assert.equal(error.name, 'ServiceUnavailable');
    assert.equal(sent.length, 2);
  });

  test('missing credentials in the environment fail with a sentence, not a signature error', async () => {
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    delete process.env.AWS_ACCESS_KEY_ID;
    delete process.env.AWS_SECRET_ACCESS_KEY;
    try {
      const { fetchFn } = scriptedFetch([]);
      const call = jsonClient({ service: 'dynamodb', targetPrefix: 'DynamoDB_20120810', region: 'us-east-1', fetch: fetchFn });
      await assert.rejects(call('GetItem', {}), /AWS credentials are not in the environment/);
    } finally {
      if (saved.id !== undefined) process.env.AWS_ACCESS_KEY_ID = saved.id;
      if (saved.secret !== undefined) process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
    }
  });
});
