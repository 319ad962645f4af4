import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Principal } from '#local/synth/caller-access.js';
import type { PolicyStatement } from '#local/synth/model.js';

/** Functions with CDK-shaped roles, by access key, and a fake emulator, for the IAM proxy and local Secrets Manager tests. */

export const region = 'us-east-1';
export const accountId = '000000000000';
export const tableArn = `arn:aws:dynamodb:${region}:${accountId}:table/svc-table`;
export const queueArn = `arn:aws:sqs:${region}:${accountId}:run-queue`;
export const secretArn = `arn:aws:secretsmanager:${region}:${accountId}:secret:service-key-AbCdEf`;

const readTable: PolicyStatement = { Effect: 'Allow', Action: ['dynamodb:GetItem', 'dynamodb:Query'], Resource: [tableArn, `${tableArn}/index/*`] };
export const principals = new Map<string, Principal>([
  ['AKIDREADER', { functionName: 'RunsGet', roleName: 'RunsGetRole', statements: [readTable] }],
  [
    'AKIDTENANT',
    {
      functionName: 'TenantRead',
      roleName: 'TenantReadRole',
      statements: [{ ...readTable, Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['ACCOUNT#a1', 'ACCOUNT#a1#*'] } } }],
    },
  ],
  [
    'AKIDSENDER',
    {
      functionName: 'RunsCreate',
      roleName: 'RunsCreateRole',
      statements: [
        { Effect: 'Allow', Action: ['sqs:SendMessage', 'sqs:GetQueueAttributes'], Resource: queueArn },
        { Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: secretArn },
      ],
    },
  ],
]);

interface Seen {
  url?: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Stands in for DynamoDB Local and fauxqs: records what reaches it and answers as they would. */
export async function startFakeUpstream() {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ url: request.url, headers: request.headers, body });
      const operation = String(request.headers['x-amz-target']).split('.').pop();
      const answer =
        operation === 'SendMessage'
          ? { MessageId: 'm-1', MD5OfMessageBody: createHash('md5').update(JSON.parse(body).MessageBody).digest('hex') }
          : operation === 'Query'
            ? { Items: [], Count: 0, ScannedCount: 0 }
            : { Item: { pk: { S: 'ACCOUNT#a1' }, name: { S: 'from upstream' } } };
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-RequestId': 'upstream-request' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, stop: () => new Promise<void>((r) => server.close(() => r())) };
}

export const credentials = (accessKeyId: string) => ({ accessKeyId, secretAccessKey: 'local' });
export const isAccessDenied = (action: string, resource: string) => (error: Error) => {
  assert.equal(error.name, 'AccessDeniedException');
  assert.match(error.message, new RegExp(`${action} on resource: ${resource.replace(/[/.]/g, '\\$&')}`));
  return true;
};
