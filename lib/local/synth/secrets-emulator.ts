import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { iamRequests, type RawRequest, targetOperation } from './aws-requests.js';
import { type AccessOptions, answerRefusal, authorize } from './caller-access.js';
import { listen, type RunningEndpoint, readBody } from './iam-proxy.js';

/**
 * A local Secrets Manager for what deployed code does with secrets, reading
 * them (Powertools getSecret, DescribeSecret), with the same per-function
 * permission check as the IAM proxy. Written here because no emulator on
 * npm is one we want for two operations; the JSON 1.1 answers are the
 * shapes `@aws-sdk/client-secrets-manager` parses.
 */

export interface LocalSecret {
  arn: string;
  name: string;
  value: string;
}

export interface SecretsEmulatorOptions extends AccessOptions {
  region: string;
  secrets: readonly LocalSecret[];
  port?: number;
}

interface StoredSecret extends LocalSecret {
  versionId: string;
  createdDate: number;
}

export async function startSecretsEmulator(options: SecretsEmulatorOptions): Promise<RunningEndpoint> {
  const createdDate = Math.floor(Date.now() / 1000);
  const secrets: StoredSecret[] = options.secrets.map((secret) => ({ ...secret, versionId: randomUUID(), createdDate }));
  const scope = { region: options.region, accountId: options.accountId, partitionKey: '', secrets };
  const server = createServer((incoming, outgoing) => {
    readBody(incoming)
      .then((body) => {
        const raw: RawRequest = { method: incoming.method ?? 'POST', url: incoming.url, headers: incoming.headers, body };
        const refusal = authorize(options, raw, iamRequests('secretsmanager', raw, scope));
        if (refusal) return answerRefusal(outgoing, 'secretsmanager', refusal.message);
        const { status, body: answerBody } = answer(targetOperation(raw) ?? '', JSON.parse(body.toString('utf8') || '{}'), secrets);
        outgoing.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-RequestId': randomUUID() }).end(JSON.stringify(answerBody));
      })
      .catch(() => outgoing.destroy());
  });
  return listen(server, options.port ?? 0);
}

interface SecretRequest {
  SecretId?: string;
  VersionId?: string;
  VersionStage?: string;
}

function answer(operation: string, request: SecretRequest, secrets: readonly StoredSecret[]): { status: number; body: object } {
  if (operation !== 'GetSecretValue' && operation !== 'DescribeSecret') {
    const message = `The local Secrets Manager serves GetSecretValue and DescribeSecret, not ${operation}.`;
    return { status: 400, body: { __type: 'UnknownOperationException', Message: message } };
  }
  const secret = secrets.find((candidate) => candidate.arn === request.SecretId || candidate.name === request.SecretId);
  // Only one version is kept: asking for another (or another stage) finds nothing, as AWS would for a version that does not exist.
  const otherVersion = (request.VersionId && request.VersionId !== secret?.versionId) || (request.VersionStage && request.VersionStage !== 'AWSCURRENT');
  if (!secret || (operation === 'GetSecretValue' && otherVersion)) {
    return { status: 400, body: { __type: 'ResourceNotFoundException', Message: "Secrets Manager can't find the specified secret." } };
  }
  const identity = { ARN: secret.arn, Name: secret.name, CreatedDate: secret.createdDate };
  if (operation === 'DescribeSecret') {
    return { status: 200, body: { ...identity, LastChangedDate: secret.createdDate, VersionIdsToStages: { [secret.versionId]: ['AWSCURRENT'] } } };
  }
  return { status: 200, body: { ...identity, SecretString: secret.value, VersionId: secret.versionId, VersionStages: ['AWSCURRENT'] } };
}
