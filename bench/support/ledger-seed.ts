import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { billing } from '#billing/index.js';
import { keys } from '#platform/table/keys.js';
import { queryAll } from '#platform/table/queries.js';
import type { TableRef } from '#platform/table/table.js';
import type { TransactItem } from '#platform/table/transactions.js';

/**
 * Ledgers of many transactions for the billing benchmarks, written by the
 * ledger's own code (lib/billing/ledger-repository.ts, through `billing(table)
 * .credit` and `.debit`) at chosen times: a clock the bench sets stands in
 * for `new Date()` while an entry is built, so a ledger can span days.
 *
 * The ledger writes one entry at a time (each TransactWriteItems moves the
 * head's position under a condition on the value read), about 14 ms each on
 * DynamoDB Local: 10 000 would take minutes. `seedFast` runs the same ledger
 * code against an in-memory stand-in for the table that answers the head
 * and balance reads and keeps every transaction it is given, then writes
 * those very items: the Puts (id item, entry, its copy) with BatchWriteItem,
 * and each counter item's Updates (account, head, day, block) as its first
 * Update, then one Update per distinct expression for the rest, with the
 * ADD operands summed and the other values of the last one (what applying
 * them one by one leaves), conditions dropped. `checkFastSeed` proves it
 * in the same run: the same schedule written by the real ledger and by
 * `seedFast` to two accounts leaves the same items, ids and account aside.
 */

export interface SeedEntry {
  id: string;
  type: 'credit' | 'debit';
  amountMicroUsd: number;
  description: string;
  metadata: Record<string, unknown>;
  /** When the entry is made, epoch ms. */
  at: number;
}

const DAY_MS = 86_400_000;
/** Midnight UTC of today, epoch ms. */
export const todayMidnight = (): number => Math.floor(Date.now() / DAY_MS) * DAY_MS;

/**
 * `count` entries, `perDay` a day, ending on yesterday (UTC): three credits
 * (a top-up with an invoice number) for every debit (usage of a workflow
 * request), so a balance that starts at zero never runs dry.
 */
export function schedule(count: number, perDay: number): SeedEntry[] {
  const days = Math.ceil(count / perDay);
  const start = todayMidnight() - days * DAY_MS;
  const step = Math.floor(DAY_MS / perDay);
  return Array.from({ length: count }, (_, i) =>
    i % 4 === 3
      ? {
          id: randomUUID(),
          type: 'debit' as const,
          amountMicroUsd: 250_000,
          description: `Usage of workflow request ${i}`,
          metadata: { workflow_request_id: `wr_bench_${i}` },
          at: start + i * step + 1_000,
        }
      : {
          id: randomUUID(),
          type: 'credit' as const,
          amountMicroUsd: 1_000_000,
          description: `Top-up ${i}`,
          metadata: { invoice: `INV-${i}` },
          at: start + i * step + 1_000,
        },
  );
}

/** Runs `fn` with `new Date()` and `Date.now()` answering `clock.now` (set by `fn` as it goes); the real clock is back after. */
async function withClock<T>(fn: (clock: { now: number }) => Promise<T>): Promise<T> {
  const RealDate = Date;
  const clock = { now: RealDate.now() };
  class BenchDate extends RealDate {
    constructor(...args: unknown[]) {
      // biome-ignore lint/suspicious/noExplicitAny: Date's constructor overloads, passed through as given
      super(...((args.length ? args : [clock.now]) as [any]));
    }
    static override now(): number {
      return clock.now;
    }
  }
  globalThis.Date = BenchDate as DateConstructor;
  try {
    return await fn(clock);
  } finally {
    globalThis.Date = RealDate;
  }
}

const entryCall = (ledger: ReturnType<typeof billing>, accountId: string, e: SeedEntry) =>
  e.type === 'credit'
    ? ledger.credit({ id: e.id, accountId, amountMicroUsd: e.amountMicroUsd, description: e.description, metadata: e.metadata })
    : ledger.debit({ id: e.id, accountId, amountMicroUsd: e.amountMicroUsd, description: e.description, metadata: e.metadata });

/** The entries through the real ledger on the table, one after another. */
export async function seedReal(table: TableRef, accountId: string, entries: readonly SeedEntry[]): Promise<void> {
  const ledger = billing(table);
  await withClock(async (clock) => {
    for (const e of entries) {
      clock.now = e.at;
      await entryCall(ledger, accountId, e);
    }
  });
}

/** The ledger's transactions for `entries`, built by its own code against an in-memory head and balance (seedFast). */
async function ledgerTransactions(table: TableRef, accountId: string, entries: readonly SeedEntry[]): Promise<TransactItem[][]> {
  const headSk = keys.transactionTotals(accountId).sk;
  const accountSk = keys.account(accountId).sk;
  const { Item: account } = await table.db.send(new GetCommand({ TableName: table.tableName, Key: keys.account(accountId), ConsistentRead: true }));
  const { Item: head } = await table.db.send(new GetCommand({ TableName: table.tableName, Key: keys.transactionTotals(accountId), ConsistentRead: true }));
  if (head) throw new Error('seedFast writes a ledger from its start: this account has entries already');
  const state = { seq: 0, lastAt: undefined as string | undefined, counts: {} as Record<string, number>, balance: Number(account?.balance_micro_usd ?? 0) };
  const captured: TransactItem[][] = [];
  const send = async (command: unknown): Promise<unknown> => {
    if (command instanceof GetCommand) {
      const sk = command.input.Key?.sk;
      if (sk === headSk) return { Item: state.seq ? { seq: state.seq, last_at: state.lastAt, ...state.counts } : undefined };
      if (sk === accountSk) return { Item: { balance_micro_usd: state.balance } };
    }
    if (command instanceof TransactWriteCommand) {
      const items = command.input.TransactItems ?? [];
      captured.push(items);
      for (const item of items) {
        const update = item.Update;
        if (!update) continue;
        const values = update.ExpressionAttributeValues ?? {};
        if (update.Key?.sk === headSk) {
          state.seq = Number(values[':seq']);
          state.lastAt = String(values[':now']);
          const combo = update.ExpressionAttributeNames?.['#combo'];
          if (combo) state.counts[combo] = (state.counts[combo] ?? 0) + 1;
        } else if (update.Key?.sk === accountSk) {
          state.balance += Number(values[':amount']);
        }
      }
      return {};
    }
    throw new Error(`seedFast: the ledger sent ${(command as object).constructor.name}, which the stand-in does not answer`);
  };
  const ledger = billing({ db: { send } as unknown as TableRef['db'], tableName: table.tableName });
  await withClock(async (clock) => {
    for (const e of entries) {
      clock.now = e.at;
      await entryCall(ledger, accountId, e);
    }
  });
  return captured;
}

type Update = NonNullable<TransactItem['Update']>;

/** The placeholders of an update expression's ADD clause: what applying the same Update twice adds up. */
const addOperands = (expression: string): string[] => {
  const clause = /\bADD\b(.*?)(?=\b(?:SET|REMOVE|DELETE)\b|$)/s.exec(expression)?.[1] ?? '';
  return [...clause.matchAll(/:\w+/g)].map((m) => m[0]);
};

/** The Update without its condition, and without the names and values only the condition used. */
function unconditional(update: Update, values: Record<string, unknown>): Update {
  const expression = update.UpdateExpression ?? '';
  const used = (token: string) => new RegExp(`${token}(?!\\w)`).test(expression);
  const names = Object.fromEntries(Object.entries(update.ExpressionAttributeNames ?? {}).filter(([n]) => used(n)));
  return {
    TableName: update.TableName,
    Key: update.Key,
    UpdateExpression: expression,
    ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
    ExpressionAttributeValues: Object.fromEntries(Object.entries(values).filter(([v]) => used(v))),
  };
}

/** One counter item's Updates, in order, as fewer Updates that leave the same item (see seedFast). */
function composed(updates: readonly Update[]): Update[] {
  const [first, ...rest] = updates;
  if (!first) return [];
  // Grouped by expression and names, the groups in the order of their last Update: the last Update's SETs are applied last.
  const groups = new Map<string, Update[]>();
  for (const u of rest) {
    const signature = `${u.UpdateExpression}\n${JSON.stringify(u.ExpressionAttributeNames ?? {})}`;
    const list = groups.get(signature) ?? [];
    groups.delete(signature);
    list.push(u);
    groups.set(signature, list);
  }
  const out: Update[] = [unconditional(first, first.ExpressionAttributeValues ?? {})];
  for (const list of groups.values()) {
    const last = list.at(-1)!;
    const values: Record<string, unknown> = { ...last.ExpressionAttributeValues };
    for (const operand of addOperands(last.UpdateExpression ?? ''))
      values[operand] = list.reduce((sum, u) => sum + Number(u.ExpressionAttributeValues?.[operand] ?? 0), 0);
    out.push(unconditional(last, values));
  }
  return out;
}

async function inParallel<T>(work: readonly T[], concurrency: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < work.length) await fn(work[next++]!);
    }),
  );
}

/** Writes `entries` to the account's (empty) ledger as the ledger would, fast (see the top of this file). */
export async function seedFast(
  table: TableRef,
  accountId: string,
  entries: readonly SeedEntry[],
): Promise<{ transactions: number; puts: number; updates: number }> {
  const transactions = await ledgerTransactions(table, accountId, entries);
  const puts: Array<Record<string, unknown>> = [];
  const updatesByKey = new Map<string, Update[]>();
  for (const item of transactions.flat()) {
    if (item.Put) puts.push(item.Put.Item as Record<string, unknown>);
    else if (item.Update) {
      const key = JSON.stringify(item.Update.Key);
      updatesByKey.set(key, [...(updatesByKey.get(key) ?? []), item.Update]);
    } else throw new Error(`seedFast: the ledger wrote ${Object.keys(item).join(', ')}, which it does not apply`);
  }
  const batches: Array<Array<Record<string, unknown>>> = [];
  for (let i = 0; i < puts.length; i += 25) batches.push(puts.slice(i, i + 25));
  await inParallel(batches, 16, async (batch) => {
    let requests = batch.map((Item) => ({ PutRequest: { Item } }));
    while (requests.length) {
      const answer = await table.db.send(new BatchWriteCommand({ RequestItems: { [table.tableName]: requests } }));
      requests = (answer.UnprocessedItems?.[table.tableName] ?? []) as typeof requests;
    }
  });
  const chains = [...updatesByKey.values()].map(composed);
  await inParallel(chains, 16, async (chain) => {
    for (const update of chain) await table.db.send(new UpdateCommand(update as ConstructorParameters<typeof UpdateCommand>[0]));
  });
  return { transactions: transactions.length, puts: puts.length, updates: chains.reduce((n, c) => n + c.length, 0) };
}

/** The account's balance and ledger items (its partition's `TXN…` items), the account id and transaction ids replaced by placeholders. */
async function ledgerImage(table: TableRef, accountId: string, entries: readonly SeedEntry[]): Promise<string> {
  const items = await queryAll(table.db, {
    TableName: table.tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :txn)',
    ExpressionAttributeValues: { ':pk': keys.account(accountId).pk, ':txn': 'TXN' },
    ConsistentRead: true,
  });
  const { Item: account } = await table.db.send(new GetCommand({ TableName: table.tableName, Key: keys.account(accountId), ConsistentRead: true }));
  let text = JSON.stringify({ balance: account?.balance_micro_usd, items });
  text = text.split(accountId).join('<account>');
  entries.forEach((e, i) => {
    text = text.split(e.id).join(`<txn ${i}>`);
  });
  return text;
}

/**
 * The same `count` entries written to `real` by the ledger itself and to
 * `fast` by seedFast: true when both leave the same ledger items and
 * balance. Returns what differs otherwise.
 */
export async function checkFastSeed(
  table: TableRef,
  real: string,
  fast: string,
  count: number,
  perDay: number,
): Promise<{ same: boolean; items: number; realMs: number; fastMs: number }> {
  const plan = schedule(count, perDay);
  const again = plan.map((e) => ({ ...e, id: randomUUID() }));
  let t0 = performance.now();
  await seedReal(table, real, plan);
  const realMs = performance.now() - t0;
  t0 = performance.now();
  await seedFast(table, fast, again);
  const fastMs = performance.now() - t0;
  const [a, b] = await Promise.all([ledgerImage(table, real, plan), ledgerImage(table, fast, again)]);
  return { same: a === b, items: (JSON.parse(a) as { items: unknown[] }).items.length, realMs, fastMs };
}
