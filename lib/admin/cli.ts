import { parseArgs } from 'node:util';
import { type AdminCommandName, adminCommands, UsageError } from '#accounts/admin-commands.js';
import { readLocalStackState } from '#local/state.js';
import { createDynamoDb } from '#platform/aws/clients.js';
import { readEnv } from '#platform/config/env.js';
import { DomainError } from '#platform/errors.js';

const HELP = `Usage: npm run --silent admin -- <command> [--flags]

Commands:
  account:create --email E --password P [--plan free|pro|team] [--balance-usd N] [--extra-usage]
  account:suspend --account-id ID
  account:unsuspend --account-id ID
  account:credit --account-id ID --usd N [--description TEXT]
  account:refund --transaction-id ID [--usd N] [--description TEXT]
  account:set-limits --account-id ID [--five-hour-usd N] [--week-usd N] [--rps N] [--concurrency N]
  account:set-limits --account-id ID --reset
  account:extra-usage --account-id ID --on|--off
  account:show --account-id ID

Target: with DYNAMODB_ENDPOINT set, that endpoint (DynamoDB Local, LocalStack);
with only TABLE_NAME set, the deployed table of that name, using the usual AWS
credentials and AWS_REGION; with neither, the running \`npm start\` stack.`;

/** Runs one command; prints one JSON object on stdout, or a sentence on stderr. */
export async function main(
  argv: string[],
  out: Pick<NodeJS.WritableStream, 'write'> = process.stdout,
  err: Pick<NodeJS.WritableStream, 'write'> = process.stderr,
): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === 'help') {
    (command ? out : err).write(`${HELP}\n`);
    return command ? 0 : 2;
  }
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({
      args: rest,
      options: {
        email: { type: 'string' },
        password: { type: 'string' },
        plan: { type: 'string' },
        'balance-usd': { type: 'string' },
        'extra-usage': { type: 'boolean' },
        'account-id': { type: 'string' },
        usd: { type: 'string' },
        description: { type: 'string' },
        'transaction-id': { type: 'string' },
        'five-hour-usd': { type: 'string' },
        'week-usd': { type: 'string' },
        rps: { type: 'string' },
        concurrency: { type: 'string' },
        reset: { type: 'boolean' },
        on: { type: 'boolean' },
        off: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (error) {
    err.write(`${(error as Error).message}\n`);
    return 2;
  }
  // An explicit endpoint or table wins; with neither, a running `npm start`.
  const local = process.env.DYNAMODB_ENDPOINT || process.env.TABLE_NAME ? undefined : readLocalStackState();
  const env = readEnv({ ...process.env, ...(local ? { DYNAMODB_ENDPOINT: local.dynamodbEndpoint, TABLE_NAME: local.tableName } : {}) });
  try {
    // A deployed table is reached with the operator's own credentials (profiles, SSO, roles): the SDK's default chain.
    const commands = adminCommands({ db: createDynamoDb(env), tableName: env.tableName });
    if (!(command in commands)) {
      err.write(`Unknown command ${command}.\n${HELP}\n`);
      return 2;
    }
    const result = await commands[command as AdminCommandName](values);
    out.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      err.write(`${error.message}\n`);
      return 2;
    }
    err.write(`${error instanceof DomainError ? error.detail : `Failed: ${(error as Error).message}`}\n`);
    return 1;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exit(await main(process.argv.slice(2)));
}
