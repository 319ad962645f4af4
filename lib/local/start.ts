import { createServer } from 'node:net';
import { describeOutboundSettings } from '#net/outbound-settings.js';
import { ensureDemoAccount } from './demo.js';
import { LocalStackError } from './emulators.js';
import { startLocalStack } from './stack.js';
import { clearLocalStackState, writeLocalStackState } from './state.js';

async function assertPortFree(port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new LocalStackError(
          error.code === 'EADDRINUSE'
            ? `Port ${port} is already in use; stop whatever holds it or start on another port with PORT=<port> npm start.`
            : `Cannot listen on port ${port}: ${error.message}`,
        ),
      ),
    );
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}

async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new LocalStackError(`PORT must be a port number, not ${process.env.PORT}.`);
  await assertPortFree(port);
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  const quiet = process.env.LOCAL_QUIET === '1';
  const stack = await startLocalStack({
    port,
    tableName: process.env.TABLE_NAME,
    queuePrefix: process.env.QUEUE_PREFIX,
    dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT || undefined,
    sqsEndpoint: process.env.SQS_ENDPOINT || undefined,
    dataDir: process.env.LOCAL_DATA_DIR || undefined,
    onRequest: quiet ? undefined : (r) => console.log(`${r.method} ${r.path} ${r.status} ${r.ms}ms`),
    onWorkerError: (error) => console.error('worker error:', error),
    workers: process.env.LOCAL_WORKERS !== 'off',
  });
  writeLocalStackState({
    pid: process.pid,
    url: stack.url,
    dynamodbEndpoint: stack.dynamodbEndpoint,
    sqsEndpoint: stack.sqsEndpoint,
    tableName: stack.tableName,
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping the local stack…`);
    clearLocalStackState();
    await stack.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  console.log(`Workflow service listening on ${stack.url}`);
  console.log(
    `  DynamoDB: ${stack.dynamodbEndpoint} (table ${stack.tableName}${process.env.LOCAL_DATA_DIR ? `, data in ${process.env.LOCAL_DATA_DIR}` : ', in memory'})`,
  );
  console.log(`  SQS:      ${stack.sqsEndpoint}${process.env.LOCAL_WORKERS === 'off' ? ' (no workers here: run them with npm run workers)' : ''}`);
  console.log(`  OpenAPI:  ${stack.url}/openapi.json`);
  // The handlers run in this process and read OUTBOUND_ALLOWED_HOSTS / OUTBOUND_ALLOW_INSECURE (or their earlier names) on every call.
  console.log(`  Outbound: ${describeOutboundSettings()}`);

  const demo = await ensureDemoAccount();
  if (demo) {
    console.log('\nCreated a demo account (the table was empty):');
    console.log(`  email:    ${demo.email}`);
    console.log(`  password: ${demo.password}`);
    console.log(`  token:    ${demo.token}  (valid until ${demo.expiresAt})`);
    console.log(`\nTry:\n  curl -s ${stack.url}/v1/api-tokens -H "Authorization: Bearer ${demo.token}"\n`);
  }
  console.log('Press Ctrl-C to stop.');
}

main().catch((error: unknown) => {
  clearLocalStackState();
  console.error(error instanceof LocalStackError ? error.message : error);
  process.exit(1);
});
