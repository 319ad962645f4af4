import assert from 'node:assert/strict';
import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import { DescribeSecretCommand, GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, test } from 'vitest';
import type { Denial } from '#local/synth/caller-access.js';
import type { RunningEndpoint } from '#local/synth/iam-proxy.js';
import { startSecretsEmulator } from '#local/synth/secrets-emulator.js';
import { accountId, credentials, isAccessDenied, principals, region, secretArn } from '../helpers/synth-iam-fixtures.js';

describe('startSecretsEmulator (lib/local/synth/secrets-emulator.ts)', () => {
  let secrets: RunningEndpoint;
  const denials: Denial[] = [];
  beforeAll(async () => {
    secrets = await startSecretsEmulator({
      region,
      accountId,
      principals,
      trustedKeys: ['local'],
      onDenied: (denial) => denials.push(denial),
      secrets: [{ arn: secretArn, name: 'service-key', value: 's3cr3t' }],
    });
  });
  afterAll(() => secrets.stop());
  const client = (key: string) => new SecretsManagerClient({ endpoint: secrets.endpoint, region, credentials: credentials(key), maxAttempts: 1 });

  test('GetSecretValue answers a caller allowed to read the secret', async () => {
    const value = await client('AKIDSENDER').send(new GetSecretValueCommand({ SecretId: 'service-key' }));

    assert.equal(value.SecretString, 's3cr3t');
    assert.equal(value.ARN, secretArn);
    assert.equal(value.Name, 'service-key');
    assert.deepEqual(value.VersionStages, ['AWSCURRENT']);
    assert.ok(value.CreatedDate instanceof Date && Math.abs(value.CreatedDate.getTime() - Date.now()) < 60_000);
  });

  test('another function is refused with AccessDeniedException, and reported', async () => {
    await assert.rejects(
      client('AKIDREADER').send(new GetSecretValueCommand({ SecretId: secretArn })),
      isAccessDenied('secretsmanager:GetSecretValue', secretArn),
    );
    assert.deepEqual(denials, [{ functionName: 'RunsGet', action: 'secretsmanager:GetSecretValue', resource: secretArn, reason: 'implicitDeny' }]);
  });

  test('DescribeSecret states the current version; an unknown secret is ResourceNotFoundException', async () => {
    const described = await client('local').send(new DescribeSecretCommand({ SecretId: secretArn }));

    await assert.rejects(client('local').send(new GetSecretValueCommand({ SecretId: 'nope' })), (error: Error) => error.name === 'ResourceNotFoundException');
    assert.deepEqual(Object.values(described.VersionIdsToStages ?? {}), [['AWSCURRENT']]);
  });
});

describe('Powertools getSecret reaches the local Secrets Manager through AWS_ENDPOINT_URL_SECRETS_MANAGER', () => {
  const names = ['AWS_ENDPOINT_URL_SECRETS_MANAGER', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_REGION'] as const;
  const saved = Object.fromEntries(names.map((name) => [name, process.env[name]]));
  let secrets: RunningEndpoint | undefined;
  afterAll(async () => {
    await secrets?.stop();
    for (const name of names) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  test('as the function whose key is AWS_ACCESS_KEY_ID, and is refused for another', async () => {
    const denials: Denial[] = [];
    const otherArn = `arn:aws:secretsmanager:${region}:${accountId}:secret:other-XyZ123`;
    secrets = await startSecretsEmulator({
      region,
      accountId,
      principals,
      onDenied: (denial) => denials.push(denial),
      secrets: [
        { arn: secretArn, name: 'service-key', value: 'from-env' },
        { arn: otherArn, name: 'other', value: 'hidden' },
      ],
    });
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
      AWS_ACCESS_KEY_ID: 'AKIDSENDER',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_REGION: region,
    });

    const value = await getSecret<string>(secretArn);
    await assert.rejects(getSecret<string>(otherArn));

    assert.equal(value, 'from-env');
    assert.deepEqual(denials, [{ functionName: 'RunsCreate', action: 'secretsmanager:GetSecretValue', resource: otherArn, reason: 'implicitDeny' }]);
  });
});
