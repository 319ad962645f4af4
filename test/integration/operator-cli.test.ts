import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { REPO_ROOT } from '#local/handlers.js';
import { runAdmin } from '../helpers/admin-cli.js';
import { startTestStack } from '../helpers/stack.js';

let stack: Awaited<ReturnType<typeof startTestStack>>;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});

const admin = (...argv: string[]) => runAdmin(stack, argv);

const email = () => `op-${randomUUID()}@example.com`;

describe('operator CLI', () => {
  test('account:create prints {account_id, email, plan}; defaults to pro with balance 0', async () => {
    const address = email();
    const result = await admin('account:create', '--email', address, '--password', 'correct horse');
    assert.equal(result.code, 0, result.err);
    assert.match(result.json?.account_id as string, /^[0-9a-f-]{36}$/);
    assert.equal(result.json?.email, address);
    assert.equal(result.json?.plan, 'pro');
    const shown = await admin('account:show', '--account-id', result.json!.account_id as string);
    assert.equal(shown.json?.balance_micro_usd, 0);
    assert.equal(shown.json?.suspended, false);
    assert.equal(result.out.trim().split('\n').length, 1, 'one JSON object on stdout');
  });

  test('plan, balance and extra usage are set; credit adds a completed credit and raises the balance', async () => {
    const created = await admin('account:create', '--email', email(), '--password', 'password1', '--plan', 'team', '--balance-usd', '2.5', '--extra-usage');
    const id = created.json!.account_id as string;
    const credited = await admin('account:credit', '--account-id', id, '--usd', '1.25', '--description', 'Top-up');
    assert.equal(credited.code, 0, credited.err);
    const transaction = credited.json?.transaction as Record<string, unknown>;
    assert.deepEqual(
      { type: transaction.type, status: transaction.status, amount: transaction.amount, description: transaction.description, currency: transaction.currency },
      { type: 'credit', status: 'completed', amount: 1_250_000, description: 'Top-up', currency: 'USD' },
    );
    assert.equal(credited.json?.balance_micro_usd, 3_750_000);
    const shown = await admin('account:show', '--account-id', id);
    assert.equal(shown.json?.plan, 'team');
    assert.equal(shown.json?.extra_usage, true);
    assert.equal(shown.json?.balance_micro_usd, 3_750_000);
  });

  test('suspend and unsuspend flip the account', async () => {
    const id = (await admin('account:create', '--email', email(), '--password', 'password1')).json!.account_id as string;
    assert.equal((await admin('account:suspend', '--account-id', id)).json?.suspended, true);
    assert.equal((await admin('account:show', '--account-id', id)).json?.suspended, true);
    assert.equal((await admin('account:unsuspend', '--account-id', id)).json?.suspended, false);
  });

  test('mistakes exit non-zero with a sentence on stderr and nothing on stdout', async () => {
    const address = email();
    await admin('account:create', '--email', address, '--password', 'password1');
    const cases: Array<[string[], number, RegExp]> = [
      [['account:create', '--email', address, '--password', 'password1'], 1, /already exists/],
      [['account:create', '--email', 'not-an-email', '--password', 'password1'], 2, /--email/],
      [['account:create', '--email', email()], 2, /--password is required/],
      [['account:create', '--email', email(), '--password', 'password1', '--plan', 'gold'], 2, /--plan/],
      [['account:show', '--account-id', randomUUID()], 1, /No account/],
      [['account:show', '--account-id', 'nope'], 2, /--account-id/],
      [['account:credit', '--account-id', randomUUID(), '--usd', '5'], 1, /No account/],
      [['account:credit', '--account-id', randomUUID(), '--usd', '-5'], 2, /--usd/],
      [['account:suspend', '--account-id', randomUUID()], 1, /No account/],
      [['account:delete'], 2, /Unknown command/],
      [['account:show', '--bogus'], 2, /bogus/],
    ];
    for (const [argv, code, message] of cases) {
      const result = await admin(...argv);
      assert.equal(result.code, code, `${argv.join(' ')}: ${result.err}`);
      assert.match(result.err, message);
      assert.equal(result.out, '');
    }
  });

  test('account:show prints the limits in force: the plan’s, with no override', async () => {
    const id = (await admin('account:create', '--email', email(), '--password', 'password1', '--plan', 'team', '--balance-usd', '3')).json!
      .account_id as string;
    const shown = await admin('account:show', '--account-id', id);
    assert.equal(shown.json?.balance_micro_usd, 3_000_000);
    assert.deepEqual(shown.json?.limits, {
      five_hour_allowance_micro_usd: 200_000_000,
      week_allowance_micro_usd: 1_000_000_000,
      requests_per_second: 100,
      burst: 200,
      concurrency: 50,
    });
    assert.deepEqual(shown.json?.overrides, {});
  });

  test('account:set-limits replaces the plan’s values (USD to microdollars exactly), keeps the others, and --reset returns to the plan’s', async () => {
    const id = (await admin('account:create', '--email', email(), '--password', 'password1')).json!.account_id as string;
    const set = await admin('account:set-limits', '--account-id', id, '--five-hour-usd', '0.1', '--week-usd', '12.345678', '--rps', '3');
    assert.equal(set.code, 0, set.err);
    assert.deepEqual(set.json?.overrides, { five_hour_allowance: 100_000, week_allowance: 12_345_678, rps: 3 });
    assert.deepEqual(set.json?.limits, {
      five_hour_allowance_micro_usd: 100_000,
      week_allowance_micro_usd: 12_345_678,
      requests_per_second: 3,
      burst: 6,
      concurrency: 10,
    });
    const more = await admin('account:set-limits', '--account-id', id, '--concurrency', '2', '--five-hour-usd', '0');
    assert.deepEqual(more.json?.overrides, { five_hour_allowance: 0, week_allowance: 12_345_678, rps: 3, concurrency: 2 }, 'earlier overrides stay');
    const shown = await admin('account:show', '--account-id', id);
    assert.deepEqual(shown.json?.limits, more.json?.limits);
    assert.equal(shown.json?.balance_micro_usd, 0);
    const reset = await admin('account:set-limits', '--account-id', id, '--reset');
    assert.deepEqual(reset.json?.overrides, {});
    assert.deepEqual(reset.json?.limits, {
      five_hour_allowance_micro_usd: 20_000_000,
      week_allowance_micro_usd: 100_000_000,
      requests_per_second: 20,
      burst: 40,
      concurrency: 10,
    });
  });

  test('account:extra-usage switches extra usage on and off', async () => {
    const id = (await admin('account:create', '--email', email(), '--password', 'password1')).json!.account_id as string;
    assert.equal((await admin('account:extra-usage', '--account-id', id, '--on')).json?.extra_usage, true);
    assert.equal((await admin('account:show', '--account-id', id)).json?.extra_usage, true);
    assert.equal((await admin('account:extra-usage', '--account-id', id, '--off')).json?.extra_usage, false);
    assert.equal((await admin('account:show', '--account-id', id)).json?.extra_usage, false);
  });

  test('set-limits and extra-usage refuse what they cannot apply exactly, with a sentence and a non-zero exit', async () => {
    const id = (await admin('account:create', '--email', email(), '--password', 'password1')).json!.account_id as string;
    const cases: Array<[string[], number, RegExp]> = [
      [['account:set-limits', '--account-id', id], 2, /at least one of/],
      [['account:set-limits', '--account-id', id, '--reset', '--rps', '5'], 2, /--reset .* cannot be combined with --rps/],
      [['account:set-limits', '--account-id', id, '--five-hour-usd', '1.0000001'], 2, /--five-hour-usd .* at most 6 decimals/],
      [['account:set-limits', '--account-id', id, '--week-usd', '-1'], 2, /--week-usd/],
      [['account:set-limits', '--account-id', id, '--week-usd', '1e3'], 2, /--week-usd/],
      [['account:set-limits', '--account-id', id, '--rps', '0'], 2, /--rps must be a whole number from 1 to 1000/],
      [['account:set-limits', '--account-id', id, '--rps', '2.5'], 2, /--rps/],
      [['account:set-limits', '--account-id', id, '--rps', '1001'], 2, /--rps/],
      [['account:set-limits', '--account-id', id, '--concurrency', 'many'], 2, /--concurrency/],
      [['account:set-limits', '--account-id', randomUUID(), '--rps', '5'], 1, /No account/],
      [['account:set-limits', '--rps', '5'], 2, /--account-id is required/],
      [['account:extra-usage', '--account-id', id], 2, /exactly one of --on and --off/],
      [['account:extra-usage', '--account-id', id, '--on', '--off'], 2, /exactly one of --on and --off/],
      [['account:extra-usage', '--account-id', randomUUID(), '--on'], 1, /No account/],
    ];
    for (const [argv, code, message] of cases) {
      const result = await admin(...argv);
      assert.equal(result.code, code, `${argv.join(' ')}: ${result.err}`);
      assert.match(result.err, message);
      assert.equal(result.out, '');
    }
    assert.deepEqual((await admin('account:show', '--account-id', id)).json?.overrides, {}, 'nothing was changed');
  });

  test('`npm run --silent admin` works as a real process against the table', async () => {
    const child = spawn('npm', ['run', '--silent', 'admin', '--', 'account:create', '--email', email(), '--password', 'password1', '--plan', 'free'], {
      cwd: REPO_ROOT,
      env: { ...process.env, DYNAMODB_ENDPOINT: stack.dynamodbEndpoint, TABLE_NAME: stack.tableName, NODE_NO_WARNINGS: '1' },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 0);
    const printed = JSON.parse(out) as { plan: string };
    assert.equal(printed.plan, 'free');
  });
});
