import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { activityUpdate } from '#billing/index.js';
import { addDays, utcDay } from '#billing/model.js';
import { createAccount, login, mintToken } from '../../test/helpers/stack.js';
import type { EngineStack } from '../support/engine-stack.js';
import { lineWriter, log, mark, ms, num, passFail, times } from '../support/format.js';
import { checkFastSeed, schedule, seedFast, todayMidnight } from '../support/ledger-seed.js';
import { setRequestRate } from '../support/local-stack.js';
import { median, percentile, sum } from '../support/stats.js';

/**
 * Section 7.2: `GET /v1/billing/transactions` at a ledger of 10 000
 * transactions against one of 100: read units and latency of page 1 and a
 * late page, unfiltered and filtered, as ratios (budget ≤ 1.3×). Section
 * 7.3: `GET /v1/activity/daily` at 30 and 366 days.
 */

export const LIST_RATIO_BUDGET = 1.3;
const LARGE = 10_000;
const SMALL = 100;
const PER_DAY = 100;
const LIMIT = 20;
/** Samples of the context row (a content filter without dates reads the whole ledger: seconds a request at 10 000). */
const CONTEXT_SAMPLES = 5;

interface ListCase {
  label: string;
  query: string;
  page: 'first' | 'middle' | 'last';
  /** Not a budget row: shows what the documented cost of a filter is. */
  context?: boolean;
}

export interface ListSide {
  readUnits: number;
  /** Read units without the bearer authentication's BatchGetItem. */
  ledgerUnits: number;
  calls: number;
  page: number;
  returned: number;
  totalCount: number;
  latencyMs: { median: number; p95: number };
  samples: number;
}

export interface ListCaseResult {
  label: string;
  query: string;
  context: boolean;
  small: ListSide;
  large: ListSide;
  ratio: { readUnits: number; latency: number };
  pass: boolean;
}

export interface ActivityCaseResult {
  label: string;
  days: number;
  itemsRead: number;
  readUnits: number;
  activityQueryUnits: number;
  calls: number;
  latencyMs: { median: number; p95: number };
}

export interface TransactionsResult {
  samples: number;
  seed: {
    /** The fast path checked against the real ledger on SMALL entries: same items and balance. */
    check: { same: boolean; items: number; realMs: number; fastMs: number };
    largeMs: number;
    transactions: number;
    puts: number;
    updates: number;
  };
  oneDay: string;
  cases: ListCaseResult[];
  activity: { samples: number; seededDays: number; cases: ActivityCaseResult[] };
}

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: the response body, read field by field
  body: any;
  ms: number;
  readUnits: number;
  ledgerUnits: number;
  calls: number;
}

/** One GET as a client sends it, with the DynamoDB reads the proxy saw meanwhile (requests go one at a time). */
async function get(b: EngineStack, token: string, path: string): Promise<Answer> {
  const before = b.ddb.calls.length;
  const t0 = performance.now();
  const response = await fetch(`${b.stack.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const body = await response.json();
  const elapsed = performance.now() - t0;
  const reads = b.ddb.calls.slice(before).filter((c) => c.kind === 'read');
  return {
    status: response.status,
    body,
    ms: elapsed,
    readUnits: sum(reads.map((c) => c.awsUnits)),
    ledgerUnits: sum(reads.filter((c) => c.op !== 'BatchGetItem').map((c) => c.awsUnits)),
    calls: reads.length,
  };
}

/** A pro account (with no balance: no opening credit, its ledger starts empty), its rate raised (requests back to back). */
async function proAccount(b: EngineStack, balanceUsd: number) {
  const account = await createAccount(b.direct, { plan: 'pro', balanceUsd });
  await setRequestRate(b.direct, account.accountId, 1000);
  return account;
}

/** A token for the account, signed in through the API (after its ledger is written: a token needs a balance of 2 USD). */
async function tokenFor(b: EngineStack, account: Awaited<ReturnType<typeof proAccount>>): Promise<{ accountId: string; token: string }> {
  const cookie = await login(b.stack.url, account);
  const { token } = await mintToken(b.stack.url, cookie, { duration_minutes: 120 });
  return { accountId: account.accountId, token };
}

const sideOf = (answers: Answer[], page: number): ListSide => ({
  readUnits: median(answers.map((a) => a.readUnits)),
  ledgerUnits: median(answers.map((a) => a.ledgerUnits)),
  calls: median(answers.map((a) => a.calls)),
  page,
  returned: answers[0]?.body?.transactions?.length ?? 0,
  totalCount: answers[0]?.body?.pagination?.total_count ?? 0,
  latencyMs: {
    median: median(answers.map((a) => a.ms)),
    p95: percentile(
      answers.map((a) => a.ms),
      95,
    ),
  },
  samples: answers.length,
});

/** Seeds both ledgers (the small one by the ledger itself), then samples every case at both, interleaved. */
export async function measureTransactions(b: EngineStack, samples: number): Promise<TransactionsResult> {
  log(`money: GET /v1/billing/transactions at ${LARGE} transactions against ${SMALL}, ${samples} requests per case`);
  const [smallAccount, largeAccount, verify] = [await proAccount(b, 0), await proAccount(b, 0), await proAccount(b, 0)];
  const check = await checkFastSeed(b.direct, smallAccount.accountId, verify.accountId, SMALL, PER_DAY);
  if (!check.same) throw new Error('the fast ledger seed left other items than the ledger itself: the 10 000-transaction ledger would not be the service’s');
  let t0 = performance.now();
  const written = await seedFast(b.direct, largeAccount.accountId, schedule(LARGE, PER_DAY));
  const largeMs = performance.now() - t0;
  log(
    `money: ${LARGE} transactions written in ${(largeMs / 1000).toFixed(1)} s (fast path, checked on ${SMALL} against the ledger: same ${check.items} items)`,
  );

  const [small, large] = [await tokenFor(b, smallAccount), await tokenFor(b, largeAccount)];
  const oneDay = utcDay(new Date(todayMidnight() - 86_400_000));
  const day = `start_date=${oneDay}&end_date=${oneDay}`;
  const cases: ListCase[] = [
    { label: 'no filters, page 1', query: '', page: 'first' },
    { label: 'no filters, last page', query: '', page: 'last' },
    { label: '`types=debit`, page 1', query: 'types=debit', page: 'first' },
    { label: '`types=debit`, last page', query: 'types=debit', page: 'last' },
    { label: 'one day (`start_date` = `end_date`), last page', query: day, page: 'last' },
    { label: '`types=debit` and one day, page 1', query: `types=debit&${day}`, page: 'first' },
    { label: '`search=top-up` and one day, page 1', query: `search=top-up&${day}`, page: 'first' },
    { label: '`types=debit`, middle page (context: walks half the block counters)', query: 'types=debit', page: 'middle', context: true },
    { label: '`search=top-up` alone, page 1 (context: reads every entry)', query: 'search=top-up', page: 'first', context: true },
  ];
  const path = (c: ListCase, page: number) => `/v1/billing/transactions?limit=${LIMIT}&page=${page}${c.query ? `&${c.query}` : ''}`;
  const plan = await Promise.all(
    cases.map(async (c) => {
      const pages: number[] = [];
      for (const who of [small, large]) {
        const first = await get(b, who.token, path(c, 1));
        if (first.status !== 200) throw new Error(`GET ${path(c, 1)} answered ${first.status}: ${JSON.stringify(first.body)}`);
        const total = Math.max(1, first.body.pagination.total_pages as number);
        pages.push(c.page === 'first' ? 1 : c.page === 'middle' ? Math.ceil(total / 2) : total);
      }
      return { c, pages, answers: [[], []] as Answer[][] };
    }),
  );
  const sample = async (p: (typeof plan)[number]) => {
    for (const [i, who] of [small, large].entries()) {
      const answer = await get(b, who.token, path(p.c, p.pages[i]!));
      if (answer.status !== 200) throw new Error(`GET ${path(p.c, p.pages[i]!)} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      p.answers[i]!.push(answer);
    }
  };
  for (let i = 0; i < samples; i++) for (const p of plan.filter((x) => !x.c.context)) await sample(p);
  for (let i = 0; i < CONTEXT_SAMPLES; i++) for (const p of plan.filter((x) => x.c.context)) await sample(p);
  const results: ListCaseResult[] = plan.map((p) => {
    const s = sideOf(p.answers[0]!, p.pages[0]!);
    const l = sideOf(p.answers[1]!, p.pages[1]!);
    const ratio = { readUnits: l.readUnits / s.readUnits, latency: l.latencyMs.median / s.latencyMs.median };
    return {
      label: p.c.label,
      query: p.c.query,
      context: !!p.c.context,
      small: s,
      large: l,
      ratio,
      pass: ratio.readUnits <= LIST_RATIO_BUDGET && ratio.latency <= LIST_RATIO_BUDGET,
    };
  });

  t0 = performance.now();
  const activity = await measureActivity(b, await tokenFor(b, await proAccount(b, 10)), samples);
  log(`money: activity measured in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return { samples, seed: { check, largeMs, ...written }, oneDay, cases: results, activity };
}

/** Section 7.3: the bench's account (today's activity, from 7.1's runs) and an account with activity on each of the last 366 days. */
async function measureActivity(b: EngineStack, year: { accountId: string; token: string }, samples: number): Promise<TransactionsResult['activity']> {
  const today = utcDay(new Date());
  const days = Array.from({ length: 366 }, (_, i) => addDays(today, -i));
  for (let i = 0; i < days.length; i += 16) {
    await Promise.all(
      days.slice(i, i + 16).map((day, j) =>
        b.direct.db.send(
          new TransactWriteCommand({
            TransactItems: [activityUpdate(b.direct.tableName, year.accountId, day, { requests: 3 + j, nodes: 30 + j, runs: 2, cost_micro_usd: 12_345 + j })],
          }),
        ),
      ),
    );
  }
  const cases = [
    { label: 'the bench account (activity today only), `days=30`', token: b.token, days: 30, answers: [] as Answer[] },
    { label: 'the bench account, `days=366`', token: b.token, days: 366, answers: [] as Answer[] },
    { label: 'activity on each of the last 366 days, `days=30`', token: year.token, days: 30, answers: [] as Answer[] },
    { label: 'activity on each of the last 366 days, `days=366`', token: year.token, days: 366, answers: [] as Answer[] },
  ];
  await setRequestRate(b.direct, b.accountId, 1000);
  try {
    for (let i = 0; i <= samples; i++) {
      for (const c of cases) {
        const answer = await get(b, c.token, `/v1/activity/daily?days=${c.days}`);
        if (answer.status !== 200) throw new Error(`GET /v1/activity/daily answered ${answer.status}`);
        if (i > 0) c.answers.push(answer);
      }
    }
  } finally {
    await setRequestRate(b.direct, b.accountId, undefined);
  }
  return {
    samples,
    seededDays: days.length,
    cases: cases.map((c) => ({
      label: c.label,
      days: c.days,
      itemsRead: ((c.answers[0]?.body?.data ?? []) as Array<{ request_count: number; node_count: number }>).filter((d) => d.request_count + d.node_count > 0)
        .length,
      readUnits: median(c.answers.map((a) => a.readUnits)),
      activityQueryUnits: median(c.answers.map((a) => a.ledgerUnits)),
      calls: median(c.answers.map((a) => a.calls)),
      latencyMs: {
        median: median(c.answers.map((a) => a.ms)),
        p95: percentile(
          c.answers.map((a) => a.ms),
          95,
        ),
      },
    })),
  };
}

const budgetRows = (r: TransactionsResult) => r.cases.filter((c) => !c.context);
const failing = (r: TransactionsResult) => budgetRows(r).filter((c) => !c.pass);

export function renderTransactionsSection(r: TransactionsResult, section: number): string[] {
  const { lines, out } = lineWriter();
  out(`### ${section}.2 \`GET /v1/billing/transactions\` at 10 000 transactions against 100`);
  out();
  out(
    `Budget: a page (\`limit=${LIMIT}\`) of a ledger of ${LARGE.toLocaleString('en-US')} transactions costs at most ${LIST_RATIO_BUDGET}× the same page of a ledger of ${SMALL}, in read units and in median latency.`,
  );
  out();
  out(
    '| Case | Page at 100 / at 10 000 | total_count at 100 / at 10 000 | DynamoDB reads at 100 / 10 000 | RRU at 100 | RRU at 10 000 | of which the ledger’s (at 10 000) | Latency median at 100 / 10 000 | p95 at 10 000 | **RRU ratio** | **Latency ratio** | Budget |',
  );
  out('|---|---|---|---|---:|---:|---:|---|---:|---:|---:|---|');
  for (const c of r.cases) {
    out(
      `| ${c.label} | ${c.small.page} / ${c.large.page} | ${c.small.totalCount} / ${c.large.totalCount} | ${num(c.small.calls, 0)} / ${num(c.large.calls, 0)} | ${num(c.small.readUnits, 1)} | ${num(c.large.readUnits, 1)} | ${num(c.large.ledgerUnits, 1)} | ${ms(c.small.latencyMs.median)} / ${ms(c.large.latencyMs.median)} | ${ms(c.large.latencyMs.p95)} | **${times(c.ratio.readUnits)}** | **${times(c.ratio.latency)}** | ${c.context ? `context (${c.large.samples} samples)` : mark(c.pass)} |`,
    );
  }
  out();
  out(
    `**How measured.** Two pro accounts with no balance (so no opening credit) get a ledger each: ${SMALL} transactions written by the ledger itself (\`billing(table).credit\` and \`.debit\`, lib/billing/ledger-repository.ts, one after another: ${num(r.seed.check.realMs / 1000, 1)} s, about ${num(r.seed.check.realMs / SMALL, 0)} ms each), all on one UTC day (${r.oneDay}); and ${LARGE.toLocaleString('en-US')} transactions, ${PER_DAY} a day over the ${LARGE / PER_DAY} days up to ${r.oneDay}, written the fast way (bench/support/ledger-seed.ts, ${num(r.seed.largeMs / 1000, 1)} s): the ledger's own code builds each transaction against an in-memory head and balance, and its items are written as built (${r.seed.puts.toLocaleString('en-US')} Puts in BatchWriteItem, each counter item's ${(r.seed.transactions * 4).toLocaleString('en-US')} Updates folded into ${r.seed.updates} that leave the same item). The fast path is checked in the same run: the same ${SMALL}-transaction schedule written by both leaves ${r.seed.check.same ? 'the same' : '**different**'} ${r.seed.check.items} ledger items and balance, ids and account aside. Entries alternate three top-up credits (description \`Top-up <n>\`, metadata \`invoice\`) and one usage debit; a stand-in clock gives each its time. Every request goes through the local gateway to the real handler (functions/billing/transactions-list.ts) with a bearer token, one at a time, so the reads the counting proxy saw meanwhile are the request's (the authentication's BatchGetItem included; the rate log's UpdateItem is a write). The last page is \`total_pages\` of the case's first answer. Each case was requested ${r.samples} times at each size, interleaved (the context rows ${CONTEXT_SAMPLES} times, not held to the budget: a \`types\` page in the middle of the ledger walks the block counters from the nearer end, one item per 100 positions, about 50 at ${LARGE.toLocaleString('en-US')}; \`search\` without dates reads every entry, which docs/data-model.md says \`search\`, \`min_amount\` and \`max_amount\` do within the dates given). Read units are AWS's rules from what DynamoDB Local reported; latency is the request's wall time at the client.`,
  );
  out();
  out(`### ${section}.3 \`GET /v1/activity/daily\``);
  out();
  out('| Account, request | Days with activity in the answer | DynamoDB reads | RRU per request | of which the activity Query | Latency median | p95 |');
  out('|---|---:|---:|---:|---:|---:|---:|');
  for (const c of r.activity.cases) {
    out(
      `| ${c.label} | ${c.itemsRead} | ${num(c.calls, 0)} | ${num(c.readUnits, 1)} | ${num(c.activityQueryUnits, 1)} | ${ms(c.latencyMs.median)} | ${ms(c.latencyMs.p95)} |`,
    );
  }
  out();
  out(
    `**How measured.** The bench's account has today's activity from section ${section}.1's runs; another pro account gets an activity item on each of the last ${r.activity.seededDays} UTC days, each written by \`activityUpdate\` (lib/billing/activity-repository.ts) in a TransactWriteItems as the features write them. Each request ${r.activity.samples} times, interleaved, after one unrecorded round, one at a time through the local gateway with a bearer token; read units are those the proxy saw meanwhile (the authentication's BatchGetItem and the days' Query, strongly consistent).`,
  );
  out();
  return lines;
}

export const transactionsSummary = (r: TransactionsResult): string => {
  const over = failing(r);
  const worst = budgetRows(r).reduce((a, c) => (Math.max(c.ratio.readUnits, c.ratio.latency) > Math.max(a.ratio.readUnits, a.ratio.latency) ? c : a));
  const year = r.activity.cases.at(-1)!;
  return `Billing transactions page at ${LARGE.toLocaleString('en-US')} against ${SMALL} (≤ ${LIST_RATIO_BUDGET}×, read units and median latency): ${over.length ? `**${over.length} of ${budgetRows(r).length} FAIL** (${over.map((c) => c.label).join('; ')})` : `pass (${budgetRows(r).length} of ${budgetRows(r).length})`}, worst ${worst.label} ${times(worst.ratio.readUnits)} RRU, ${times(worst.ratio.latency)} latency; \`GET /v1/activity/daily?days=366\` on a year of activity ${num(year.readUnits, 1)} RRU, ${ms(year.latencyMs.median)}`;
};

export const transactionsConsoleLines = (r: TransactionsResult): string[] => [
  `Billing transactions, ${LARGE} against ${SMALL} (budget ≤ ${LIST_RATIO_BUDGET}×; seed ${num(r.seed.largeMs / 1000, 1)} s, fast path check ${r.seed.check.same ? 'same items' : 'DIFFERENT'}):`,
  ...r.cases.map(
    (c) =>
      `  ${c.label.replace(/`/g, '').padEnd(56)} ${num(c.small.readUnits, 1).padStart(6)} → ${num(c.large.readUnits, 1).padStart(6)} RRU  ${ms(c.small.latencyMs.median).padStart(9)} → ${ms(c.large.latencyMs.median).padStart(9)}  ${times(c.ratio.readUnits)} / ${times(c.ratio.latency)}  ${c.context ? 'context' : passFail(c.pass)}`,
  ),
  'Activity daily:',
  ...r.activity.cases.map((c) => `  ${c.label.replace(/`/g, '').padEnd(56)} ${num(c.readUnits, 1).padStart(6)} RRU  ${ms(c.latencyMs.median).padStart(9)}`),
];

export const transactionsBudget = (r: TransactionsResult): string =>
  `  transactions  ${failing(r).length ? `FAIL (${failing(r).length} of ${budgetRows(r).length} cases over ${LIST_RATIO_BUDGET}×)` : `pass (${budgetRows(r).length} of ${budgetRows(r).length})`}`;
