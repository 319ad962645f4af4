import { describeOutboundSettings } from '#net/outbound-settings.js';
import { failStart, portFromEnv, serveUntilSignal } from './cli.js';
import { ensureDemoAccount, printDemoAccount } from './demo.js';
import { scheduleLoopFromEnv } from './schedule-loop.js';
import { startLocalStack } from './stack.js';

async function main(): Promise<void> {
  const port = await portFromEnv();
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
    scheduleLoop: scheduleLoopFromEnv(),
  });
  serveUntilSignal(stack);

  console.log(`Workflow service listening on ${stack.url}`);
  console.log(
    `  DynamoDB: ${stack.dynamodbEndpoint} (table ${stack.tableName}${process.env.LOCAL_DATA_DIR ? `, data in ${process.env.LOCAL_DATA_DIR}` : ', in memory'})`,
  );
  console.log(`  SQS:      ${stack.sqsEndpoint}${process.env.LOCAL_WORKERS === 'off' ? ' (no workers here: run them with npm run workers)' : ''}`);
  console.log(`  Console:  ${stack.url}/ (sign in with the demo account below)`);
  console.log(`  API reference: ${stack.url}/docs (the document: ${stack.url}/openapi.json)`);
  // The handlers run in this process and read OUTBOUND_ALLOWED_HOSTS / OUTBOUND_ALLOW_INSECURE (or their earlier names) on every call.
  console.log(`  Outbound: ${describeOutboundSettings()}`);

  printDemoAccount(await ensureDemoAccount(), stack.url);
  console.log('Press Ctrl-C to stop.');
}

main().catch(failStart);
