import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, test, vi } from 'vitest';
import { adminCommands } from '#accounts/admin-commands.js';
import { formatToken, tokenHash } from '#accounts/api-tokens.js';
import { tokensRepo } from '#accounts/tokens-repository.js';
import { activityUpdate, billing, transactionIdFor } from '#billing/index.js';
import { newTokenId } from '#platform/ids.js';
import { runAdmin } from '../helpers/admin-cli.js';
import { type Json, jsonCaller } from '../helpers/api.js';
import { signedUpUser, startTestStack } from '../helpers/stack.js';
import { apiFor, createVersion, runVersion, settledTree, transform } from '../helpers/workflows.js';

let stack: Awaited<ReturnType<typeof startTestStack>>;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack.stop();
});
afterEach(() => vi.useRealTimers());

const caller = jsonCaller(() => stack.url);
/** A GET answered 429 `rate_limited` (the account's request rate) is sent again after `Retry-After`, as clients do. */
const call: typeof caller = async (...args) => {
  for (let attempt = 0; ; attempt++) {
    const answer = await caller(...args);
    if (answer.status !== 429 || attempt === 3) return answer;
    await new Promise((resolve) => setTimeout(resolve, Number(answer.headers.get('retry-after') ?? 1) * 1000));
  }
};
const ledger = () => billing(stack.table);
const usd = (n: number) => Math.round(n * 1_000_000);

async function list(token: string, query = ''): Promise<Json> {
  const answer = await call('GET', `/v1/billing/transactions${query}`, token);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}
const ids = (body: Json): string[] => body.transactions.map((t: Json) => t.id);

const admin = (...argv: string[]) => runAdmin(stack, argv);

/**
 * A pro account (10 USD opening credit) whose wallet is then used the way
 * metering will: debits through the billing service, a top-up through
 * account:credit, a debit the balance only partly covers, one it cannot
 * cover at all, and a refund through account:refund. Newest first:
 * refund 1, d4 failed 0.5, d3 7 of 9, credit 1, d2 2.5, d1 1.5, opening 10.
 */
async function walletUser() {
  const user = await signedUpUser(stack);
  const debit = (name: string, amount: number, description: string, metadata: Record<string, unknown>) =>
    ledger().debit({
      id: transactionIdFor(`debit:test:${user.accountId}:${name}`),
      accountId: user.accountId,
      amountMicroUsd: usd(amount),
      description,
      metadata,
    });
  const d1 = await debit('d1', 1.5, 'Workflow request Alpha', { workflow_request_id: 'wr-1' });
  const d2 = await debit('d2', 2.5, 'Run beta', { run_id: 'Run-BETA-2' });
  const credit = await admin('account:credit', '--account-id', user.accountId, '--usd', '1', '--description', 'Top-up');
  assert.equal(credit.code, 0, credit.err);
  const d3 = await debit('d3', 9, 'Run gamma', { run_id: 'r3' });
  const d4 = await debit('d4', 0.5, 'Run delta', { run_id: 'r4' });
  const refund = await admin('account:refund', '--transaction-id', d2.transaction.id, '--usd', '1');
  assert.equal(refund.code, 0, refund.err);
  return { ...user, d1, d2, d3, d4, credit: credit.json!.transaction as Json, refund: refund.json!.transaction as Json };
}

describe('the wallet', () => {
  test('debits take the balance down to zero, never below: all, part (the shortfall reported), then nothing (failed)', async () => {
    const user = await walletUser();
    assert.deepEqual([user.d1.transaction.amount, user.d1.transaction.status, user.d1.shortfallMicroUsd], [1_500_000, 'completed', 0]);
    assert.deepEqual([user.d3.transaction.amount, user.d3.transaction.status, user.d3.shortfallMicroUsd], [7_000_000, 'completed', 2_000_000]);
    assert.deepEqual(user.d3.transaction.metadata, { run_id: 'r3', requested_micro_usd: 9_000_000, shortfall_micro_usd: 2_000_000 });
    assert.deepEqual([user.d4.transaction.amount, user.d4.transaction.status, user.d4.shortfallMicroUsd], [500_000, 'failed', 500_000]);
    assert.equal((await admin('account:show', '--account-id', user.accountId)).json?.balance_micro_usd, 1_000_000, 'the refund of 1 USD');

    // A redelivered debit (the same id) is the same transaction, and takes nothing more.
    const again = await ledger().debit({
      id: user.d1.transaction.id,
      accountId: user.accountId,
      amountMicroUsd: 1_500_000,
      description: 'Workflow request Alpha',
    });
    assert.deepEqual([again.replayed, again.transaction.id, again.transaction.created_at], [true, user.d1.transaction.id, user.d1.transaction.created_at]);
    assert.equal((await admin('account:show', '--account-id', user.accountId)).json?.balance_micro_usd, 1_000_000);
    assert.equal((await list(user.token)).pagination.total_count, 7);
  });
});

describe('GET /v1/billing/transactions', () => {
  let user: Awaited<ReturnType<typeof walletUser>>;
  let all: Json[];
  beforeAll(async () => {
    user = await walletUser();
    all = (await list(user.token)).transactions;
  });
  const idsOf = (...txns: Array<{ id: string } | Json>): string[] => txns.map((t) => t.id);

  test('newest first, the specification’s fields, with the pagination object', async () => {
    const body = await list(user.token);
    assert.equal(body.transactions.length, 7);
    assert.deepEqual(
      ids(body).slice(0, 6),
      idsOf(user.refund, user.d4.transaction, user.d3.transaction, user.credit, user.d2.transaction, user.d1.transaction),
    );
    assert.deepEqual(body.pagination, { page: 1, limit: 20, total_count: 7, total_pages: 1, has_next: false, has_prev: false });
    const refund = body.transactions[0];
    assert.deepEqual(Object.keys(refund).sort(), [
      'amount',
      'created_at',
      'currency',
      'description',
      'id',
      'metadata',
      'processor_charge_id',
      'processor_payment_intent_id',
      'status',
      'type',
      'updated_at',
      'user_id',
    ]);
    assert.deepEqual([refund.type, refund.amount, refund.user_id, refund.currency], ['refund', 1_000_000, user.accountId, 'USD']);
    assert.deepEqual(refund.metadata, { refunds_transaction_id: user.d2.transaction.id });
    assert.equal(body.transactions.at(-1).description, 'Opening balance');
  });

  test('types and statuses: comma-separated subsets', async () => {
    const debits = await list(user.token, '?types=debit');
    assert.deepEqual(ids(debits), idsOf(user.d4.transaction, user.d3.transaction, user.d2.transaction, user.d1.transaction));
    assert.equal(debits.pagination.total_count, 4);
    assert.deepEqual(ids(await list(user.token, '?types=credit,refund')), [user.refund.id, user.credit.id, all.at(-1)!.id]);
    assert.deepEqual(ids(await list(user.token, '?statuses=failed')), [user.d4.transaction.id]);
    const completedDebits = await list(user.token, '?types=debit&statuses=completed');
    assert.deepEqual(ids(completedDebits), idsOf(user.d3.transaction, user.d2.transaction, user.d1.transaction));
    assert.equal((await list(user.token, '?statuses=pending')).pagination.total_count, 0);
    assert.equal((await list(user.token, '?types=debit,credit,refund&statuses=pending,completed,failed')).pagination.total_count, 7);
  });

  test('min_amount and max_amount: USD, inclusive', async () => {
    const total = async (query: string) => (await list(user.token, query)).pagination.total_count;
    assert.deepEqual(ids(await list(user.token, '?min_amount=1.5&max_amount=2.5')), idsOf(user.d2.transaction, user.d1.transaction));
    assert.equal(await total('?min_amount=1.5'), 4, 'd3 7, d2 2.5, d1 1.5, opening 10');
    assert.equal(await total('?min_amount=1.500001'), 3);
    assert.equal(await total('?max_amount=1.5'), 4, 'refund 1, d4 0.5, credit 1, d1 1.5');
    assert.equal(await total('?max_amount=1.499999'), 3);
    assert.equal(await total('?min_amount=0&max_amount=0'), 0);
    assert.equal(await total('?min_amount=1&max_amount=1&types=refund'), 1);
  });

  test('search: a case-insensitive substring of the description or of a metadata value (not of a key)', async () => {
    assert.deepEqual(ids(await list(user.token, '?search=alpha')), [user.d1.transaction.id]);
    assert.deepEqual(ids(await list(user.token, '?search=run-beta')), [user.d2.transaction.id], 'a metadata value, another case');
    assert.deepEqual(ids(await list(user.token, '?search=WR-1')), [user.d1.transaction.id]);
    assert.equal((await list(user.token, '?search=run_id')).pagination.total_count, 0, 'a metadata key is not searched');
    assert.deepEqual(ids(await list(user.token, '?search=run&types=debit')), idsOf(user.d4.transaction, user.d3.transaction, user.d2.transaction));
    assert.deepEqual(ids(await list(user.token, `?search=${user.d2.transaction.id.toUpperCase()}`)), [user.refund.id], 'the refund names its debit');
    assert.equal((await list(user.token, '?search=')).pagination.total_count, 7, 'empty: no filter');
  });

  test('only the caller’s own transactions', async () => {
    const other = await signedUpUser(stack);
    const theirs = await list(other.token);
    assert.equal(theirs.pagination.total_count, 1);
    assert.equal(theirs.transactions[0].user_id, other.accountId);
    assert.ok(!ids(theirs).some((id) => ids({ transactions: all }).includes(id)));
    assert.equal((await list(other.token, '?search=alpha')).pagination.total_count, 0);
    assert.equal((await list(other.token, '?types=debit')).pagination.total_count, 0);
  });

  test('every bad value is 400 invalid_parameter naming its parameter', async () => {
    const cases: Array<[string, string]> = [
      ['page=0', 'page'],
      ['page=x', 'page'],
      ['page=1.5', 'page'],
      ['page=1000001', 'page'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=ten', 'limit'],
      ['types=debit,charge', 'types'],
      ['types=', 'types'],
      ['statuses=done', 'statuses'],
      ['start_date=2026-02-30', 'start_date'],
      ['start_date=26-01-01', 'start_date'],
      ['end_date=yesterday', 'end_date'],
      ['start_date=2026-03-02&end_date=2026-03-01', 'start_date'],
      ['min_amount=-1', 'min_amount'],
      ['min_amount=abc', 'min_amount'],
      ['max_amount=1e3', 'max_amount'],
      ['min_amount=3&max_amount=2', 'min_amount'],
      ['search=%01', 'search'],
      [`search=${'x'.repeat(201)}`, 'search'],
    ];
    for (const [query, name] of cases) {
      const answer = await call('GET', `/v1/billing/transactions?${query}`, user.token);
      assert.equal(answer.status, 400, `${query}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.type, 'application/problem+json');
      assert.equal(answer.body.code, 'invalid_parameter', query);
      assert.deepEqual(
        answer.body.errors.map((e: Json) => [e.name, e.location]),
        [[name, 'query']],
        query,
      );
    }
    assert.equal((await fetch(`${stack.url}/v1/billing/transactions`)).status, 401);
  });
});

describe('pages', () => {
  test('page 1..N with has_next, has_prev and total_pages; a page past the end is empty; a filtered walk too', async () => {
    const user = await signedUpUser(stack);
    // 22 more after the opening credit, debits and credits alternating.
    for (let i = 1; i <= 22; i++) {
      if (i % 2) await ledger().debit({ id: randomUUID(), accountId: user.accountId, amountMicroUsd: 1000 + i, description: `debit ${i}`, metadata: { i } });
      else await ledger().credit({ id: randomUUID(), accountId: user.accountId, amountMicroUsd: 1000 + i, description: `credit ${i}` });
    }
    const everything = ids(await list(user.token, '?limit=100'));
    assert.equal(everything.length, 23);
    const walked: string[] = [];
    for (let page = 1; page <= 5; page++) {
      const body = await list(user.token, `?limit=5&page=${page}`);
      assert.deepEqual(body.pagination, { page, limit: 5, total_count: 23, total_pages: 5, has_next: page < 5, has_prev: page > 1 });
      assert.equal(body.transactions.length, page < 5 ? 5 : 3);
      walked.push(...ids(body));
    }
    assert.deepEqual(walked, everything);
    const past = await list(user.token, '?limit=5&page=6');
    assert.deepEqual(past, { transactions: [], pagination: { page: 6, limit: 5, total_count: 23, total_pages: 5, has_next: false, has_prev: true } });

    const debits = (await list(user.token, '?limit=100')).transactions.filter((t: Json) => t.type === 'debit').map((t: Json) => t.id);
    const filtered: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const body = await list(user.token, `?types=debit&limit=4&page=${page}`);
      assert.deepEqual(body.pagination, { page, limit: 4, total_count: 11, total_pages: 3, has_next: page < 3, has_prev: page > 1 });
      filtered.push(...ids(body));
    }
    assert.deepEqual(filtered, debits);
    assert.deepEqual(
      ids(await list(user.token, '?search=debit 1&limit=2&page=2')),
      debits.filter((_: string, i: number) => [3, 4].includes(i)),
      'debit 19, 17, 15, 13, 11 and 1 match: the second page of two',
    );
  });

  test('an empty ledger (no transaction at all) is an empty first page', async () => {
    const user = await dayUser();
    assert.deepEqual(await list(user.token), {
      transactions: [],
      pagination: { page: 1, limit: 20, total_count: 0, total_pages: 0, has_next: false, has_prev: false },
    });
  });
});

/** An account with no opening balance and a token stored directly, so its ledger can be written at chosen times. */
async function dayUser() {
  const email = `days-${randomUUID()}@example.com`;
  const created = await adminCommands(stack.table)['account:create']({ email, password: 'password1', 'balance-usd': '0' });
  const accountId = created.account_id;
  const token = formatToken(accountId);
  const now = new Date();
  await tokensRepo(stack.table).create({
    id: newTokenId(),
    account_id: accountId,
    name: 'test',
    token_hash: tokenHash(token),
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + 3_600_000).toISOString(),
  });
  return { accountId, token };
}

describe('dates', () => {
  test('start_date and end_date are UTC days, both inclusive, to the millisecond at the edges', async () => {
    const user = await dayUser();
    const at = ['2026-01-10T00:00:00.000Z', '2026-01-10T23:59:59.999Z', '2026-01-11T00:00:00.000Z', '2026-01-12T23:59:59.999Z', '2026-01-13T00:00:00.000Z'];
    const written: string[] = [];
    for (const [i, time] of at.entries()) {
      vi.setSystemTime(new Date(time));
      written.push((await ledger().credit({ id: randomUUID(), accountId: user.accountId, amountMicroUsd: 100 + i, description: `at ${time}` })).id);
    }
    vi.useRealTimers();
    const [d10a, d10b, d11, d12, d13] = written;
    assert.deepEqual(ids(await list(user.token, '?start_date=2026-01-11&end_date=2026-01-12')), [d12, d11]);
    assert.deepEqual(ids(await list(user.token, '?start_date=2026-01-10&end_date=2026-01-10')), [d10b, d10a]);
    assert.deepEqual(ids(await list(user.token, '?start_date=2026-01-12')), [d13, d12]);
    assert.deepEqual(ids(await list(user.token, '?end_date=2026-01-11')), [d11, d10b, d10a]);
    assert.deepEqual(ids(await list(user.token, '?start_date=2026-01-11&end_date=2026-01-12&types=credit&limit=1&page=2')), [d11]);
    assert.equal((await list(user.token, '?start_date=2026-01-14')).pagination.total_count, 0);
    assert.equal((await list(user.token, '?end_date=2026-01-09')).pagination.total_count, 0);
    assert.deepEqual(ids(await list(user.token, '?start_date=2026-01-10&end_date=2026-01-12&max_amount=0.000102')), [d11, d10b, d10a]);
    const listed = await list(user.token, '?start_date=2026-01-11&end_date=2026-01-11');
    assert.equal(listed.transactions[0].created_at, '2026-01-11T00:00:00.000Z');
  });
});

describe('account:refund', () => {
  test('by default all the debit has left; part of it; never more in total; clear errors otherwise', async () => {
    const user = await signedUpUser(stack);
    const { transaction: debit } = await ledger().debit({ id: randomUUID(), accountId: user.accountId, amountMicroUsd: usd(3), description: 'Run x' });
    const part = await admin('account:refund', '--transaction-id', debit.id, '--usd', '1.25', '--description', 'Partly');
    assert.equal(part.code, 0, part.err);
    assert.deepEqual([part.json?.transaction.type, part.json?.transaction.amount, part.json?.transaction.description], ['refund', 1_250_000, 'Partly']);
    assert.deepEqual(part.json?.transaction.metadata, { refunds_transaction_id: debit.id });
    assert.equal(part.json?.balance_micro_usd, usd(10 - 3 + 1.25));

    const tooMuch = await admin('account:refund', '--transaction-id', debit.id, '--usd', '1.75001');
    assert.equal(tooMuch.code, 1);
    assert.match(tooMuch.err, /at most 1\.75 USD can be refunded/);
    assert.equal(tooMuch.out, '');

    const rest = await admin('account:refund', '--transaction-id', debit.id);
    assert.equal(rest.code, 0, rest.err);
    assert.equal(rest.json?.transaction.amount, 1_750_000);
    assert.equal(rest.json?.balance_micro_usd, usd(10));
    const none = await admin('account:refund', '--transaction-id', debit.id, '--usd', '0.01');
    assert.equal(none.code, 1);
    assert.match(none.err, /refunded already/);

    const opening = (await list(user.token, '?types=credit')).transactions[0];
    const cases: Array<[string[], number, RegExp]> = [
      [['account:refund', '--transaction-id', randomUUID()], 1, /No transaction/],
      [['account:refund', '--transaction-id', opening.id], 1, /is a credit, and only debits are refunded/],
      [['account:refund', '--transaction-id', 'nope'], 2, /--transaction-id/],
      [['account:refund'], 2, /--transaction-id is required/],
      [['account:refund', '--transaction-id', debit.id, '--usd', '0'], 2, /--usd/],
      [['account:refund', '--transaction-id', debit.id, '--usd', 'lots'], 2, /--usd/],
    ];
    for (const [argv, code, message] of cases) {
      const result = await admin(...argv);
      assert.equal(result.code, code, `${argv.join(' ')}: ${result.err}`);
      assert.match(result.err, message);
      assert.equal(result.out, '');
    }
    const body = await list(user.token, '?types=refund');
    assert.equal(body.pagination.total_count, 2);
    assert.equal((await admin('account:show', '--account-id', user.accountId)).json?.balance_micro_usd, usd(10));
  });

  test('concurrent refunds of one debit never give back more than it took', async () => {
    const user = await signedUpUser(stack);
    const { transaction: debit } = await ledger().debit({ id: randomUUID(), accountId: user.accountId, amountMicroUsd: usd(2), description: 'Run y' });
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () => ledger().refund({ id: randomUUID(), debitId: debit.id, amountMicroUsd: usd(0.5) })),
    );
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 4);
    assert.equal((await admin('account:show', '--account-id', user.accountId)).json?.balance_micro_usd, usd(10));
    assert.equal((await list(user.token, '?types=refund')).pagination.total_count, 4);
  });
});

describe('GET /v1/activity/daily', () => {
  const today = () => new Date().toISOString().slice(0, 10);
  const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
  const activity = async (token: string, query = '') => {
    const answer = await call('GET', `/v1/activity/daily${query}`, token);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body;
  };

  test('a workflow request run today counts one request and its node executions; the days before are zeros', async () => {
    const user = await signedUpUser(stack);
    const api = apiFor(
      () => stack.url,
      () => user.token,
    );
    const version = await createVersion(
      api,
      [transform('a', '{"n": 1}'), transform('b', '{"n": n + 1}'), transform('c', '{"n": n + 1}')],
      [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
      ],
    );
    const before = await activity(user.token, '?days=1');
    assert.deepEqual(before, { data: [{ date: today(), total_cost: 0, request_count: 0, node_count: 0, run_count: 0 }], days: 1 });
    const tree = await settledTree(api, await runVersion(api, version));
    assert.equal(tree.workflow_request.status, 'completed');
    const after = await activity(user.token, '?days=3');
    assert.equal(after.days, 3);
    assert.deepEqual(after.data, [
      { date: daysAgo(2), total_cost: 0, request_count: 0, node_count: 0, run_count: 0 },
      { date: daysAgo(1), total_cost: 0, request_count: 0, node_count: 0, run_count: 0 },
      // Three node executions at the flat fee of 100 microdollars (lib/platform/config/prices.ts): 0.0003 USD.
      { date: today(), total_cost: 0.0003, request_count: 1, node_count: 3, run_count: 0 },
    ]);
    const other = await signedUpUser(stack);
    assert.equal((await activity(other.token, '?days=1')).data[0].request_count, 0, 'only the caller’s');
  });

  test('the counters other parts raise inside their transactions (cost, runs) show on their day; 30 days by default, 1 and 366 at the ends', async () => {
    const user = await signedUpUser(stack);
    await stack.table.db.send(
      new TransactWriteCommand({ TransactItems: [activityUpdate(stack.tableName, user.accountId, daysAgo(1), { cost_micro_usd: 1_234_567, runs: 2 })] }),
    );
    await stack.table.db.send(new TransactWriteCommand({ TransactItems: [activityUpdate(stack.tableName, user.accountId, daysAgo(1), { runs: 1 })] }));
    const body = await activity(user.token);
    assert.equal(body.days, 30);
    assert.equal(body.data.length, 30);
    assert.deepEqual(body.data[28], { date: daysAgo(1), total_cost: 1.234567, request_count: 0, node_count: 0, run_count: 3 });
    const year = await activity(user.token, '?days=366');
    assert.equal(year.data.length, 366);
    assert.deepEqual([year.data[0].date, year.data[365].date], [daysAgo(365), today()]);
    for (let i = 1; i < 366; i++) assert.ok(year.data[i - 1].date < year.data[i].date);
    assert.equal(year.data.filter((d: Json) => d.run_count > 0).length, 1);
  });

  test('days out of 1 to 366 is 400 invalid_parameter naming days', async () => {
    const user = await signedUpUser(stack);
    for (const days of ['0', '367', 'x', '1.5', '-3', '']) {
      const answer = await call('GET', `/v1/activity/daily?days=${days}`, user.token);
      assert.equal(answer.status, 400, `days=${days}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.code, 'invalid_parameter');
      assert.deepEqual(
        answer.body.errors.map((e: Json) => e.name),
        ['days'],
      );
    }
  });
});
