import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, test } from 'vitest';
import { synthesizeServiceApp } from '../../infra/synthesize.js';
import { readStacks, resourcesOfType, roleOf, roleStatements } from './assembly.js';

// No bundling: what is checked is the templates and the manifest; the bundles are built from the sources alone.
const NO_BUNDLING = { 'aws:cdk:bundling-stacks': [] };
const KEY = 'sk-test-9f3c2b7e-never-in-the-template';
const dirs: string[] = [];
const synth = (context: Record<string, unknown>) => {
  const dir = mkdtempSync(join(tmpdir(), 'wfs-key-'));
  dirs.push(dir);
  return synthesizeServiceApp(dir, { ...NO_BUNDLING, ...context });
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const filesOf = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesOf(path) : [path];
  });

test('-c openaiApiKey=...: no trace of the key in the assembly; the key is the NoEcho parameter OpenAiApiKey kept in a secret only model-calling workers may read', () => {
  const dir = synth({ openaiApiKey: KEY, openaiBaseUrl: 'https://llm.example.com/v1' });
  for (const file of filesOf(dir)) assert.ok(!readFileSync(file, 'utf8').includes(KEY), `the key is in ${file}`);
  const stacks = readStacks(dir);
  const root = stacks[0]!;
  const { Type, NoEcho } = root.template.Parameters?.OpenAiApiKey ?? {};
  assert.deepEqual({ Type, NoEcho }, { Type: 'String', NoEcho: true });
  const secrets = resourcesOfType(root, 'AWS::SecretsManager::Secret').filter(([id]) => id.startsWith('OpenAiKey'));
  assert.equal(secrets.length, 1);
  assert.deepEqual(secrets[0]![1].Properties?.SecretString, { Ref: 'OpenAiApiKey' });
  for (const stack of stacks.slice(1)) {
    for (const [, fn] of resourcesOfType(stack, 'AWS::Lambda::Function')) {
      const env = fn.Properties?.Environment?.Variables as Record<string, unknown>;
      const callsModels = /^Worker for queue (agent-tasks|run-tasks-)/.test(String(fn.Properties?.Description));
      assert.equal(env.OPENAI_API_KEY, undefined);
      assert.equal(env.OPENAI_CONFIGURED, 'true', 'every function knows the provider is configured');
      assert.equal(env.OPENAI_API_KEY_SECRET_ARN !== undefined, callsModels, String(fn.Properties?.Description));
      const reads = roleStatements(stack, roleOf(fn)).some(
        (s) => [s.Action].flat().includes('secretsmanager:GetSecretValue') && JSON.stringify(s.Resource).includes('OpenAiKey'),
      );
      assert.equal(reads, callsModels, `${String(fn.Properties?.Description)} reads the model key`);
      if (callsModels) assert.equal(env.OPENAI_BASE_URL, 'https://llm.example.com/v1');
    }
  }
});

test('-c openaiApiKeySecretArn=...: the operator’s own secret, nothing created, no parameter', () => {
  const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:openai-AbCdEf';
  const stacks = readStacks(synth({ openaiApiKeySecretArn: arn }));
  assert.equal(stacks[0]!.template.Parameters?.OpenAiApiKey, undefined);
  assert.equal(resourcesOfType(stacks[0]!, 'AWS::SecretsManager::Secret').length, 1, 'only the service key');
  assert.ok(JSON.stringify(stacks.map((s) => s.template)).includes(arn));
});

test('without a provider: no model key, no OPENAI_* variable; -c alarmEmail subscribes the address to the alarm topic', () => {
  const stacks = readStacks(synth({ alarmEmail: 'ops@example.com' }));
  const text = JSON.stringify(stacks.map((s) => s.template));
  assert.ok(!text.includes('OPENAI_'));
  const subscriptions = resourcesOfType(stacks[0]!, 'AWS::SNS::Subscription');
  assert.equal(subscriptions.length, 1);
  assert.equal(subscriptions[0]![1].Properties?.Endpoint, 'ops@example.com');
  assert.equal(subscriptions[0]![1].Properties?.Protocol, 'email');
});
