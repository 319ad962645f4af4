/**
 * `npm test`: every tier with node's test runner. Integration tests share one
 * DynamoDB Local and one SQS emulator for the whole run (started here and
 * handed over through DYNAMODB_ENDPOINT / SQS_ENDPOINT); each test file starts
 * its own in-process gateway against them, and each test uses fresh accounts.
 *
 *   npm test                 all tiers
 *   npm test -- unit         one tier (unit | integration | infra)
 *   npm test -- test/unit/cursor.test.ts   given files
 */
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { startDynamoDbLocal, startSqsEmulator, type RunningService } from '../lib/local/emulators.js';
import { REPO_ROOT } from '../lib/local/handlers.js';

const TIERS = ['unit', 'integration', 'infra'] as const;

function testFiles(dir: string): string[] {
  const files: string[] = [];
  const walk = (current: string) => {
    for (const name of readdirSync(current)) {
      const path = join(current, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.test.ts')) files.push(path);
    }
  };
  walk(dir);
  return files.sort();
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const tiers = args.filter((a): a is (typeof TIERS)[number] => (TIERS as readonly string[]).includes(a));
  const explicit = args.filter((a) => a.endsWith('.ts')).map((a) => resolve(a));
  const files = explicit.length > 0 ? explicit : (tiers.length > 0 ? tiers : TIERS).flatMap((tier) => testFiles(join(REPO_ROOT, 'test', tier)));
  if (files.length === 0) {
    console.error('No test files found.');
    return 1;
  }
  const needsEmulators = files.some((f) => relative(REPO_ROOT, f).startsWith(join('test', 'integration')));
  const services: RunningService[] = [];
  const env: NodeJS.ProcessEnv = { ...process.env, POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'CRITICAL' };
  try {
    if (needsEmulators && !process.env.DYNAMODB_ENDPOINT) {
      const dynamodb = await startDynamoDbLocal();
      services.push(dynamodb);
      env.DYNAMODB_ENDPOINT = dynamodb.endpoint;
    }
    if (needsEmulators && !process.env.SQS_ENDPOINT) {
      const sqs = await startSqsEmulator();
      services.push(sqs);
      env.SQS_ENDPOINT = sqs.endpoint;
    }
    env.TABLE_NAME ??= `test-${Date.now()}`;
    return await new Promise<number>((resolveExit) => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files.map((f) => relative(REPO_ROOT, f))], {
        cwd: REPO_ROOT,
        env,
        stdio: 'inherit',
      });
      child.on('exit', (code, signal) => resolveExit(code ?? (signal ? 1 : 0)));
    });
  } finally {
    for (const service of services) await service.stop().catch(() => undefined);
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
