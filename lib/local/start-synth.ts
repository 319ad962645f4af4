import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { GetQueueUrlCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Firing } from '#schedules/model.js';
import { SCHEDULE_FIRINGS_QUEUE } from '#schedules/queues.js';
import { failStart, portFromEnv, serveUntilSignal } from './cli.js';
import { ensureDemoAccount, printDemoAccount } from './demo.js';
import { LocalStackError } from './emulators.js';
import { REPO_ROOT } from './handlers.js';
import { scheduleLoopFromEnv, startScheduleLoop } from './schedule-loop.js';
import { startDeployedStack, TRUSTED_ACCESS_KEY } from './synth/deployed-stack.js';

/**
 * `npm run start:synth [-- --assembly DIR]`: what `cdk deploy` would deploy,
 * run here (decisions.md, "Deployment and the synthesized stack"). The
 * settings `npm start` reads from the environment reach the functions the
 * way the operator's CDK context would: the outbound settings and the model
 * endpoint as context, the model key as the stack's OpenAiApiKey parameter,
 * so into the local Secrets Manager.
 */
const CONTEXT_OF_VARIABLE: Readonly<Record<string, string>> = {
  OUTBOUND_ALLOWED_HOSTS: 'outboundAllowedHosts',
  OUTBOUND_ALLOW_INSECURE: 'outboundAllowInsecure',
  HTTP_NODE_ALLOWED_HOSTS: 'httpNodeAllowedHosts',
  HTTP_NODE_ALLOW_INSECURE: 'httpNodeAllowInsecure',
  OPENAI_BASE_URL: 'openaiBaseUrl',
};

/** The context an operator would give for these settings; `baseUrl` as after a first deploy, so the streams get BASE_URL too. */
export function synthContext(env: NodeJS.ProcessEnv, baseUrl: string): Record<string, string> {
  const context = Object.fromEntries(Object.entries(CONTEXT_OF_VARIABLE).flatMap(([name, key]) => (env[name] ? [[key, env[name]!]] : [])));
  return { ...context, baseUrl, ...(env.OPENAI_API_KEY ? { openai: 'true' } : {}) };
}

/** `cdk synth` itself (the CLI of node_modules, offline), into `outdir`. */
function synthesize(outdir: string, context: Record<string, string>): void {
  console.log(`Synthesizing the app into ${outdir} (every function bundled; about a minute)…`);
  const args = ['synth', '--no-notices', '--quiet', '-o', outdir, ...Object.entries(context).flatMap(([key, value]) => ['-c', `${key}=${value}`])];
  const result = spawnSync(resolve(REPO_ROOT, 'node_modules/.bin/cdk'), args, {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true' },
  });
  if (result.status !== 0) throw new LocalStackError(`cdk synth failed (exit ${result.status ?? result.signal}).`);
}

/** The values the template's generated secrets get: kept in LOCAL_DATA_DIR when data is, so webhook secrets survive a restart. */
function generatedSecrets(dataDir: string | undefined): Record<string, string> | undefined {
  if (!dataDir) return undefined;
  const file = resolve(dataDir, 'synth-secrets.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  return new Proxy({} as Record<string, string>, {
    get(target, key: string) {
      if (!(key in target)) {
        target[key] = Buffer.from(crypto.getRandomValues(new Uint8Array(48))).toString('base64url');
        mkdirSync(dataDir, { recursive: true });
        writeFileSync(file, JSON.stringify(target), { mode: 0o600 });
      }
      return target[key];
    },
  });
}

/** Sends a firing to the queue named `queueName` of the SQS emulator, as EventBridge Scheduler would. */
function firingSender(sqsEndpoint: string, queueName: string): (firing: Firing) => Promise<void> {
  const sqs = new SQSClient({
    endpoint: sqsEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: TRUSTED_ACCESS_KEY, secretAccessKey: TRUSTED_ACCESS_KEY },
  });
  let url: Promise<string | undefined> | undefined;
  return async (firing) => {
    url ??= sqs.send(new GetQueueUrlCommand({ QueueName: queueName })).then((r) => r.QueueUrl);
    await sqs.send(new SendMessageCommand({ QueueUrl: await url, MessageBody: JSON.stringify(firing) }));
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { assembly: { type: 'string' } } });
  const port = await portFromEnv();
  const quiet = process.env.LOCAL_QUIET === '1';
  const assemblyDir = resolve(values.assembly ?? resolve(REPO_ROOT, 'cdk.out'));
  if (!values.assembly) synthesize(assemblyDir, synthContext(process.env, `http://127.0.0.1:${port}`));
  const dataDir = process.env.LOCAL_DATA_DIR || undefined;
  const stack = await startDeployedStack({
    assemblyDir,
    stackName: process.env.STACK_NAME,
    port,
    tableName: process.env.TABLE_NAME,
    dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT || undefined,
    sqsEndpoint: process.env.SQS_ENDPOINT || undefined,
    dataDir,
    parameters: process.env.OPENAI_API_KEY ? { OpenAiApiKey: process.env.OPENAI_API_KEY } : undefined,
    generatedSecrets: generatedSecrets(dataDir),
    onRequest: quiet ? undefined : (r) => console.log(`${r.method} ${r.path} ${r.status} ${r.ms}ms`),
    onLog: quiet ? () => undefined : (line) => console.log(line),
    onDenied: (d) => console.error(`AccessDenied: ${d.functionName} may not ${d.action} on ${d.resource} (${d.reason})`),
    onWorkerError: (error) => console.error('worker error:', error),
  });
  // This process (the demo account, the operator CLI through .local-stack.json) reaches DynamoDB Local directly.
  Object.assign(process.env, {
    TABLE_NAME: stack.tableName,
    DYNAMODB_ENDPOINT: stack.dynamodbEndpoint,
    SQS_ENDPOINT: stack.sqsEndpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: TRUSTED_ACCESS_KEY,
    AWS_SECRET_ACCESS_KEY: TRUSTED_ACCESS_KEY,
    BASE_URL: stack.url,
  });
  const loop = scheduleLoopFromEnv();
  const firings = stack.shape.queues.find((q) => q.name.endsWith(SCHEDULE_FIRINGS_QUEUE));
  // EventBridge Scheduler's part, played from this process: the firings go to the template's queue, whose worker runs as deployed.
  const stopLoop =
    loop && firings
      ? startScheduleLoop({ ...loop, send: firingSender(stack.sqsEndpoint, firings.name), onError: (e) => console.error('schedule loop:', e) })
      : undefined;
  serveUntilSignal({
    ...stack,
    stop: async () => {
      await stopLoop?.();
      await stack.stop();
    },
  });

  const { shape } = stack;
  console.log(`Workflow service (the synthesized stack ${shape.stackName}) listening on ${stack.url}`);
  console.log(`  Assembly: ${assemblyDir}: ${shape.functions.length} functions, ${shape.routes.length} routes, ${shape.eventSources.length} event sources`);
  console.log(`  DynamoDB: ${stack.dynamodbEndpoint} (table ${stack.tableName}${dataDir ? `, data in ${dataDir}` : ', in memory'})`);
  console.log(`  SQS:      ${stack.sqsEndpoint}`);
  console.log('  Each function runs its bundle under its role: a call its policy does not allow fails with AccessDeniedException.');
  printDemoAccount(await ensureDemoAccount(), stack.url);
  console.log('Press Ctrl-C to stop.');
}

main().catch(failStart);
