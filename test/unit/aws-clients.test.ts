import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, test } from 'vitest';
import { clientSettings, createDynamoDb, createSqs } from '#platform/aws/clients.js';
import { readEnv } from '#platform/config/env.js';

describe('AWS SDK clients (lib/platform/aws/clients.ts)', () => {
  let server: Server | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  test('endpoints come from the project variables or the SDK’s own, per service', async () => {
    const env = readEnv({ AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:8000', AWS_ENDPOINT_URL: 'http://127.0.0.1:4566', AWS_REGION: 'eu-west-1' });
    const db = createDynamoDb(env);
    const sqs = createSqs(env);
    const dbEndpoint = await db.config.endpoint?.();
    const sqsEndpoint = await sqs.config.endpoint?.();
    assert.equal(dbEndpoint?.hostname, '127.0.0.1');
    assert.equal(dbEndpoint?.port, 8000);
    assert.equal(sqsEndpoint?.port, 4566);
    assert.equal(await db.config.region(), 'eu-west-1');
  });

  test('standard retry mode with 4 attempts; an emulator endpoint gets fixed local credentials, AWS the SDK’s chain', async () => {
    const local = clientSettings('http://127.0.0.1:8000', 'us-east-1');
    const aws = clientSettings(undefined, 'us-east-1');
    assert.equal(local.retryMode, 'standard');
    assert.equal(local.maxAttempts, 4);
    assert.ok(local.credentials, 'emulators accept any signature');
    assert.equal(aws.credentials, undefined, 'undefined lets the SDK find the function role');
  });

  test('a stalled connection is timed out and retried, not waited on', async () => {
    let connections = 0;
    // Accepts and never answers, as a stalled connection would.
    server = createServer((socket) => {
      connections++;
      sockets.push(socket);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const client = new DynamoDBClient(
      clientSettings(`http://127.0.0.1:${port}`, 'us-east-1', { accessKeyId: 'a', secretAccessKey: 'b' }, { connectionTimeout: 200, requestTimeout: 200 }),
    );
    await assert.rejects(client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' } } })), (error: Error) => error.name === 'TimeoutError');
    assert.equal(connections, 4, 'every attempt of the standard retry mode was made');
  });
});
