import assert from 'node:assert/strict';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, test } from 'vitest';
import { activityRepo, activityUpdate, dailyActivity } from '#billing/activity-repository.js';
import {
  ALL_COMBOS,
  BLOCK_SIZE,
  blockOf,
  type Combo,
  type ComboCounts,
  comboOf,
  type LedgerEntry,
  searchTextOf,
  TRANSACTION_STATUSES,
  TRANSACTION_TYPES,
  utcDay,
} from '#billing/model.js';
import { filtersOf, type LedgerReads, listTransactions, MAX_SCANNED, microAtLeast, microAtMost, type TransactionFilters } from '#billing/transactions.js';
import { InvalidParameterError } from '#platform/errors.js';
import { keys } from '#platform/table/keys.js';
import { mockedDynamoDb } from '../helpers/dynamodb-mock.js';

type Stored = LedgerEntry & { search_text: string };

/**
 * The ledger's reads over an in-memory ledger, the counters derived from its
 * entries as the writes keep them; `read` counts the entries each call
 * reads (a Limit stops it, a filter does not), as DynamoDB bills them.
 */
function memoryLedger(entries: Stored[]) {
  const stats = { read: 0, blocks: 0 };
  const countsOf = (list: Stored[]): ComboCounts => {
    const counts: ComboCounts = {};
    for (const e of list) counts[comboOf(e.type, e.status)] = (counts[comboOf(e.type, e.status)] ?? 0) + 1;
    return counts;
  };
  const dayList = () => {
    const byDay = new Map<string, Stored[]>();
    for (const e of entries) byDay.set(utcDay(e.created_at), [...(byDay.get(utcDay(e.created_at)) ?? []), e]);
    return [...byDay]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([day, list]) => ({ day, first_seq: list[0]!.seq, last_seq: list.at(-1)!.seq, counts: countsOf(list) }));
  };
  const ledger: LedgerReads = {
    async head() {
      return { seq: entries.length, counts: countsOf(entries) };
    },
    async days(_account, from, to) {
      return dayList().filter((d) => d.day >= from && d.day <= to);
    },
    async edgeDay(_account, from, to, oldest) {
      const days = dayList().filter((d) => d.day >= from && d.day <= to);
      return oldest ? days[0] : days.at(-1);
    },
    async *blocks(_account, { top, bottom, newestFirst }) {
      const order = Array.from({ length: blockOf(top) - blockOf(bottom) + 1 }, (_, i) => blockOf(bottom) + i);
      for (const block of newestFirst ? order.reverse() : order) {
        const list = entries.filter((e) => blockOf(e.seq) === block);
        stats.blocks++;
        if (list.length > 0) yield { block, counts: countsOf(list) };
      }
    },
    async entries(_account, range, options = {}) {
      let list = entries.filter((e) => e.seq <= range.top && e.seq >= range.bottom && (!range.combo || comboOf(e.type, e.status) === range.combo)).reverse();
      if (options.limit !== undefined) list = list.slice(0, options.limit);
      stats.read += list.length;
      const v = options.filter?.values ?? {};
      return list.filter(
        (e) =>
          (v[':min'] === undefined || e.amount >= (v[':min'] as number)) &&
          (v[':max'] === undefined || e.amount <= (v[':max'] as number)) &&
          (v[':search'] === undefined || e.search_text.includes(v[':search'] as string)),
      );
    },
  };
  return { ledger, stats };
}

/** A random but reproducible ledger: `n` entries over `days` days, mostly debits, some credits and refunds, a few failed. */
function ledgerOf(n: number, days: number, seed = 7): Stored[] {
  let state = seed;
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const start = Date.parse('2026-03-01T00:00:00Z');
  return Array.from({ length: n }, (_, i) => {
    const r = random();
    const type = r < 0.75 ? 'debit' : r < 0.9 ? 'credit' : 'refund';
    const status = random() < 0.1 ? 'failed' : 'completed';
    const at = new Date(start + Math.floor((i / n) * days * 86_400_000)).toISOString();
    const description = `${type} number ${i}`;
    const metadata = { run_id: `Run-${i % 13}` };
    return {
      seq: i + 1,
      id: `t${i + 1}`,
      user_id: 'a',
      amount: Math.floor(random() * 5_000_000),
      currency: 'USD',
      type,
      status,
      description,
      metadata,
      processor_payment_intent_id: null,
      processor_charge_id: null,
      created_at: at,
      updated_at: at,
      search_text: searchTextOf(description, metadata),
    } as Stored;
  });
}

/** What the list must answer, computed the slow way. */
function expected(entries: Stored[], f: TransactionFilters, page: number, limit: number) {
  const all = entries
    .filter(
      (e) =>
        (!f.types || f.types.includes(e.type)) &&
        (!f.statuses || f.statuses.includes(e.status)) &&
        (!f.startDate || utcDay(e.created_at) >= f.startDate) &&
        (!f.endDate || utcDay(e.created_at) <= f.endDate) &&
        (f.minMicroUsd === undefined || e.amount >= f.minMicroUsd) &&
        (f.maxMicroUsd === undefined || e.amount <= f.maxMicroUsd) &&
        (f.search === undefined || e.search_text.includes(f.search)),
    )
    .reverse();
  return { ids: all.slice((page - 1) * limit, page * limit).map((e) => e.id), total: all.length };
}

const FILTERS: TransactionFilters[] = [
  {},
  { types: ['debit'] },
  { types: ['refund'] },
  { statuses: ['failed'] },
  { types: ['credit', 'refund'], statuses: ['completed'] },
  { startDate: '2026-03-03' },
  { endDate: '2026-03-04' },
  { startDate: '2026-03-02', endDate: '2026-03-04' },
  { startDate: '2026-03-02', endDate: '2026-03-04', types: ['refund'] },
  { startDate: '2026-03-05', types: ['credit'], statuses: ['failed'] },
  { endDate: '2026-03-02', statuses: ['completed', 'failed'], types: ['debit'] },
  { startDate: '2026-04-01' },
  { minMicroUsd: 1_000_000 },
  { maxMicroUsd: 2_000_000, types: ['debit'] },
  { search: 'run-3', startDate: '2026-03-02' },
  { search: 'refund number', minMicroUsd: 10, maxMicroUsd: 4_000_000, statuses: ['completed'] },
];

describe('listTransactions', () => {
  const entries = ledgerOf(1_234, 6);

  test('every filter combination, at every depth, answers what the slow way does', async () => {
    for (const filters of FILTERS) {
      for (const limit of [1, 7, 100]) {
        const { total } = expected(entries, filters, 1, limit);
        const pages = Math.ceil(total / limit);
        for (const page of [1, 2, 3, Math.floor(pages / 2), pages - 1, pages, pages + 1].filter((p) => p >= 1)) {
          const { ledger } = memoryLedger(entries);
          const answer = await listTransactions(ledger, 'a', filters, { page, limit });
          const want = expected(entries, filters, page, limit);
          const label = `${JSON.stringify(filters)} page ${page} of ${limit}`;
          assert.equal(answer.totalCount, want.total, label);
          assert.deepEqual(
            answer.transactions.map((t) => t.id),
            want.ids,
            label,
          );
        }
      }
    }
  });

  test('an unfiltered page reads exactly its entries, at any depth', async () => {
    for (const page of [1, 30, 61]) {
      const { ledger, stats } = memoryLedger(entries);
      const answer = await listTransactions(ledger, 'a', {}, { page, limit: 20 });
      assert.equal(stats.read, answer.transactions.length, `page ${page}`);
    }
  });

  test('a type or status page reads its entries plus at most what shares its edge blocks, and the counters from the nearer end, at any depth', async () => {
    for (const filters of [{ types: ['refund'] }, { statuses: ['failed'] }, { types: ['debit'], endDate: '2026-03-04' }] as TransactionFilters[]) {
      const pages = Math.ceil(expected(entries, filters, 1, 10).total / 10);
      for (const page of [1, 5, 9, pages - 4, pages]) {
        const { ledger, stats } = memoryLedger(entries);
        const answer = await listTransactions(ledger, 'a', filters, { page, limit: 10 });
        const label = `${JSON.stringify(filters)} page ${page} of ${pages}`;
        // The end date's block is counted by reading it (at most a block), then read again for the page.
        const edge = filters.endDate ? BLOCK_SIZE : 0;
        assert.ok(stats.read <= answer.transactions.length + 2 * BLOCK_SIZE + edge, `${label}: read ${stats.read}`);
        // A page near either end walks only the counters between it and that end (a handful of 100-position blocks, not all 13).
        const fromNearerEnd = Math.min(page, pages - page + 1);
        assert.ok(stats.blocks <= 2 + fromNearerEnd * 2, `${label}: ${stats.blocks} block counters`);
      }
    }
  });

  test('content filters read the range; past MAX_SCANNED it is 400 invalid_parameter naming the filter', async () => {
    const { ledger } = memoryLedger([]);
    const huge: LedgerReads = { ...ledger, head: async () => ({ seq: MAX_SCANNED + 1, counts: { debit_completed: MAX_SCANNED + 1 } }) };
    for (const [filters, name] of [
      [{ search: 'x' }, 'search'],
      [{ minMicroUsd: 1 }, 'min_amount'],
      [{ maxMicroUsd: 1 }, 'max_amount'],
    ] as Array<[TransactionFilters, string]>) {
      await assert.rejects(listTransactions(huge, 'a', filters, { page: 1, limit: 20 }), (e) => {
        assert.ok(e instanceof InvalidParameterError);
        assert.equal(e.options.errors?.[0]?.name, name);
        return true;
      });
    }
  });

  test('an empty ledger, or no day in range, is an empty page without reading entries', async () => {
    const { ledger, stats } = memoryLedger([]);
    assert.deepEqual(await listTransactions(ledger, 'a', { types: ['debit'] }, { page: 1, limit: 20 }), { transactions: [], totalCount: 0 });
    const some = memoryLedger(entries);
    assert.deepEqual(await listTransactions(some.ledger, 'a', { startDate: '2027-01-01' }, { page: 1, limit: 20 }), { transactions: [], totalCount: 0 });
    assert.equal(stats.read + some.stats.read, 0);
  });
});

describe('query values', () => {
  test('USD bounds become inclusive microdollar bounds, exactly', () => {
    assert.deepEqual([microAtLeast(1.1), microAtMost(1.1)], [1_100_000, 1_100_000]);
    assert.deepEqual([microAtLeast(0.0000015), microAtMost(0.0000015)], [2, 1]);
    assert.deepEqual([microAtLeast(0), microAtMost(1_000_000_000)], [0, 1_000_000_000_000_000]);
    for (const usd of [0.1, 0.3, 2.675, 19.99, 123.456789]) {
      const low = microAtLeast(usd);
      assert.ok(low / 1e6 >= usd && (low - 1) / 1e6 < usd, String(usd));
      const high = microAtMost(usd);
      assert.ok(high / 1e6 <= usd && (high + 1) / 1e6 > usd, String(usd));
    }
  });

  test('lists are split and deduplicated, the search lower-cased, empty search no filter', () => {
    assert.deepEqual(filtersOf({ types: 'debit, refund,debit', statuses: 'failed', search: 'RuN-3', min_amount: '1.5' }), {
      types: ['debit', 'refund'],
      statuses: ['failed'],
      startDate: undefined,
      endDate: undefined,
      minMicroUsd: 1_500_000,
      maxMicroUsd: undefined,
      search: 'run-3',
    });
    assert.equal(filtersOf({ search: '' }).search, undefined);
  });

  test('every (type, status) pair has its counter', () => {
    assert.equal(ALL_COMBOS.length, TRANSACTION_TYPES.length * TRANSACTION_STATUSES.length);
    assert.ok(ALL_COMBOS.includes('refund_failed' satisfies Combo));
  });
});

describe('daily activity', () => {
  test('activityUpdate: ADD the counts given, the date and owner only if absent, on the day item', () => {
    const { Update } = activityUpdate('t', 'acc', '2026-02-28', { requests: 1, cost_micro_usd: 250, nodes: 0 });
    assert.deepEqual([Update?.TableName, Update?.Key, Update?.ConditionExpression], ['t', keys.activityDay('acc', '2026-02-28'), undefined]);
    // What the expression means, by attribute: `#a :v` terms after ADD, `#a = if_not_exists(#a, :v)` ones before it.
    const names = Update?.ExpressionAttributeNames ?? {};
    const values = Update?.ExpressionAttributeValues ?? {};
    const [set, add] = Update!.UpdateExpression!.split(' ADD ');
    const added = Object.fromEntries(
      add!
        .split(', ')
        .map((term) => term.split(' ') as [string, string])
        .map(([n, v]) => [names[n], values[v]]),
    );
    const ifAbsent = Object.fromEntries([...set!.matchAll(/(#\w+) = if_not_exists\(\1, (:\w+)\)/g)].map(([, n, v]) => [names[n!], values[v!]]));
    assert.deepEqual(added, { cost_micro_usd: 250, request_count: 1 });
    assert.deepEqual(ifAbsent, { date: '2026-02-28', account_id: 'acc', entity: 'activity_day' });
    assert.equal(set!.replace(/(#\w+) = if_not_exists\(\1, :\w+\)(, )?/g, ''), 'SET ', 'the SET holds nothing but the if-absent attributes');
    assert.throws(() => activityUpdate('t', 'acc', '2026-02-30', { requests: 1 }), RangeError);
    assert.throws(() => activityUpdate('t', 'acc', '2026-02-28', {}), RangeError);
    assert.throws(() => activityUpdate('t', 'acc', '2026-02-28', { runs: -1 }), RangeError);
    assert.throws(() => activityUpdate('t', 'acc', '2026-02-28', { cost_micro_usd: 0.5 }), RangeError);
  });

  test('the days ending today, oldest first, zero-filled, from one consistent Query of that range', async () => {
    const { mock, table } = mockedDynamoDb();
    mock.on(QueryCommand).resolves({
      Items: [
        { date: '2026-03-01', cost_micro_usd: 1_250_000, request_count: 2, node_count: 7 },
        { date: '2026-02-27', run_count: 1 },
      ],
    });
    const data = await dailyActivity(activityRepo(table), 'acc', 4, '2026-03-01');
    assert.deepEqual(data, [
      { date: '2026-02-26', total_cost: 0, request_count: 0, node_count: 0, run_count: 0 },
      { date: '2026-02-27', total_cost: 0, request_count: 0, node_count: 0, run_count: 1 },
      { date: '2026-02-28', total_cost: 0, request_count: 0, node_count: 0, run_count: 0 },
      { date: '2026-03-01', total_cost: 1.25, request_count: 2, node_count: 7, run_count: 0 },
    ]);
    const input = mock.commandCalls(QueryCommand)[0]!.args[0].input;
    assert.deepEqual(input.ExpressionAttributeValues, {
      ':pk': keys.activityDay('acc', '2026-02-26').pk,
      ':from': keys.activityDay('acc', '2026-02-26').sk,
      ':to': keys.activityDay('acc', '2026-03-01').sk,
    });
    assert.equal(input.ConsistentRead, true);
    assert.equal((await dailyActivity(activityRepo(table), 'acc', 366, '2024-12-31'))[0]!.date, '2024-01-01', 'a leap year');
  });
});
