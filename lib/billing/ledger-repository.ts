import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { NotFoundError, UnavailableError } from '#platform/errors.js';
import { entityOf } from '#platform/table/items.js';
import { keys } from '#platform/table/keys.js';
import { queryAll } from '#platform/table/queries.js';
import { cancellationReasons, defaultTable, nowIso, type TableRef } from '#platform/table/table.js';
import type { TransactItem } from '#platform/table/transactions.js';
import { NotRefundableError, RefundExceedsDebitError, TransactionNotFoundError } from './errors.js';
import {
  ALL_COMBOS,
  type BillingTransaction,
  type BlockCounter,
  blockOf,
  type Combo,
  type ComboCounts,
  comboOf,
  type DayCounter,
  type DebitInput,
  type DebitResult,
  type LedgerEntry,
  type LedgerHead,
  type NewEntry,
  type SendItems,
  searchTextOf,
  splitCombo,
  utcDay,
} from './model.js';

/**
 * The ledger of an account (docs/data-model.md, Billing). Every entry is
 * written in one transaction with everything it moves: the balance, its id
 * item (put once: the same id never records twice), its copy in the stream
 * of its (type, status), and the counters the list reads instead of the
 * entries: the head (whole history), its UTC day, its block of 100
 * positions. Entries take the positions 1, 2, 3… of their account with no
 * gap (the head's `seq`, raised under a condition on its value), so a page
 * of the unfiltered list is one range of positions, at any depth.
 */

/** Block counters the first Query of a walk reads (about 1 KB), and the most one Query reads as it goes on. */
const FIRST_BLOCKS_READ = 8;
const MAX_BLOCKS_READ = 128;

/** The order of the items every entry writes; a caller's own items (debitWith) come after them. */
const ITEM = { account: 0, id: 1, entry: 2, copy: 3, head: 4, day: 5, block: 6 } as const;
/** How many items an entry writes: a caller that sends a debit in its own transaction gets them first (debit, `send`). */
export const ENTRY_ITEM_COUNT = 7;
const MAX_ATTEMPTS = 12;

const countsOf = (item: Record<string, unknown> | undefined): ComboCounts =>
  Object.fromEntries(ALL_COMBOS.filter((c) => typeof item?.[c] === 'number' && item[c] !== 0).map((c) => [c, item![c] as number]));

const INTERNAL = ['pk', 'sk', 'entity', 'account_id', 'seq', 'search_text', 'requested_micro_usd', 'shortfall_micro_usd', 'refunded_micro_usd'];
/** The transaction as the API shows it (the specification's fields only). */
export function transactionView(entry: object): BillingTransaction {
  const view: Record<string, unknown> = { ...entry };
  for (const field of INTERNAL) delete view[field];
  return view as unknown as BillingTransaction;
}

const toEntry = (item: Record<string, unknown>): LedgerEntry => entityOf<LedgerEntry>(item, ['account_id', 'search_text']);

const pause = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.min(200, 5 * 2 ** attempt) * (0.5 + Math.random())));

const dayCounterOf = (item: Record<string, unknown>): DayCounter => ({
  day: String(item.day),
  first_seq: Number(item.first_seq),
  last_seq: Number(item.last_seq),
  counts: countsOf(item),
});

export function ledgerRepo(table: TableRef = defaultTable()) {
  const { db, tableName } = table;

  /** The Query of the day counters of `from`…`to` (inclusive), strongly consistent. */
  const dayRange = (accountId: string, from: string, to: string) => ({
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: {
      ':pk': keys.transactionTotals(accountId).pk,
      ':from': keys.transactionDay(accountId, from).sk,
      ':to': keys.transactionDay(accountId, to).sk,
    },
    ConsistentRead: true,
  });

  async function head(accountId: string): Promise<LedgerHead> {
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.transactionTotals(accountId), ConsistentRead: true }));
    return { seq: Number(Item?.seq ?? 0), ...(Item?.last_at ? { lastAt: String(Item.last_at) } : {}), counts: countsOf(Item) };
  }

  async function byId(id: string): Promise<LedgerEntry | undefined> {
    const { Item: pointer } = await db.send(new GetCommand({ TableName: tableName, Key: keys.transactionId(id), ConsistentRead: true }));
    if (!pointer) return undefined;
    const { Item } = await db.send(
      new GetCommand({ TableName: tableName, Key: keys.transaction(String(pointer.account_id), Number(pointer.seq)), ConsistentRead: true }),
    );
    return Item ? toEntry(Item) : undefined;
  }

  async function balanceOf(accountId: string): Promise<number | undefined> {
    const { Item } = await db.send(
      new GetCommand({ TableName: tableName, Key: keys.account(accountId), ConsistentRead: true, ProjectionExpression: 'balance_micro_usd' }),
    );
    return Item ? Number(Item.balance_micro_usd ?? 0) : undefined;
  }

  /** The items of one new entry at the position after `at`, `balance` first (the account item's change or check). */
  function entryItems(at: LedgerHead, entry: NewEntry, balance: (now: string) => TransactItem) {
    const seq = at.seq + 1;
    const now = at.lastAt && at.lastAt > nowIso() ? at.lastAt : nowIso();
    const transaction: BillingTransaction = {
      id: entry.id,
      user_id: entry.accountId,
      amount: entry.amountMicroUsd,
      currency: 'USD',
      type: entry.type,
      status: entry.status,
      description: entry.description,
      metadata: entry.metadata,
      processor_payment_intent_id: null,
      processor_charge_id: null,
      created_at: now,
      updated_at: now,
    };
    const stored = { ...transaction, ...entry.internal, seq, account_id: entry.accountId, search_text: searchTextOf(entry.description, entry.metadata) };
    const combo = comboOf(entry.type, entry.status);
    const day = utcDay(now);
    const counter = (Key: Record<string, string>, set: string, values: Record<string, unknown>, condition?: string): TransactItem => ({
      Update: {
        TableName: tableName,
        Key,
        UpdateExpression: `SET entity = :entity, account_id = :account, ${set} ADD #combo :one`,
        ...(condition ? { ConditionExpression: condition } : {}),
        // `day` and `block` are DynamoDB reserved words; `seq` is named alike.
        ExpressionAttributeNames: {
          '#combo': combo,
          ...Object.fromEntries(['seq', 'day', 'block'].filter((n) => set.includes(`#${n}`)).map((n) => [`#${n}`, n])),
        },
        ExpressionAttributeValues: { ':account': entry.accountId, ':one': 1, ...values },
      },
    });
    const items: TransactItem[] = [];
    items[ITEM.account] = balance(now);
    items[ITEM.id] = {
      Put: {
        TableName: tableName,
        Item: { ...keys.transactionId(entry.id), entity: 'transaction_id', account_id: entry.accountId, seq, type: entry.type },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
    items[ITEM.entry] = {
      Put: {
        TableName: tableName,
        Item: { ...keys.transaction(entry.accountId, seq), entity: 'transaction', ...stored },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
    items[ITEM.copy] = {
      Put: { TableName: tableName, Item: { ...keys.transactionOfKind(entry.accountId, entry.type, entry.status, seq), entity: 'transaction_copy', ...stored } },
    };
    // The head's position moves only from the value read: two writers that read the same head cannot both land.
    items[ITEM.head] = counter(
      keys.transactionTotals(entry.accountId),
      '#seq = :seq, last_at = :now',
      { ':entity': 'transaction_totals', ':seq': seq, ':now': now, ...(at.seq > 0 ? { ':previous': at.seq } : {}) },
      at.seq > 0 ? '#seq = :previous' : 'attribute_not_exists(#seq)',
    );
    items[ITEM.day] = counter(keys.transactionDay(entry.accountId, day), '#day = :day, first_seq = if_not_exists(first_seq, :seq), last_seq = :seq', {
      ':entity': 'transaction_day',
      ':day': day,
      ':seq': seq,
    });
    items[ITEM.block] = counter(keys.transactionBlock(entry.accountId, blockOf(seq)), '#block = :block', {
      ':entity': 'transaction_block',
      ':block': blockOf(seq),
    });
    return { items, transaction };
  }

  const accountChange = (accountId: string, delta: number) => (now: string) => ({
    Update: {
      TableName: tableName,
      Key: keys.account(accountId),
      UpdateExpression: 'ADD balance_micro_usd :amount SET updated_at = :now',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':amount': delta, ':now': now },
    },
  });

  /**
   * The account item's part in a debit: the balance lowered by what is
   * taken, on condition that it still holds it (all of it: whatever the
   * balance is now, as long as it covers it; part: exactly the balance
   * read), or, when nothing is taken, a check that there still is nothing.
   */
  const balanceTaken = (accountId: string, taken: number, asked: number, now: string): TransactItem =>
    taken === 0
      ? {
          ConditionCheck: {
            TableName: tableName,
            Key: keys.account(accountId),
            ConditionExpression: 'balance_micro_usd <= :zero',
            ExpressionAttributeValues: { ':zero': 0 },
          },
        }
      : {
          Update: {
            TableName: tableName,
            Key: keys.account(accountId),
            UpdateExpression: 'ADD balance_micro_usd :amount SET updated_at = :now',
            ConditionExpression: taken === asked ? 'balance_micro_usd >= :taken' : 'balance_micro_usd = :taken',
            ExpressionAttributeValues: { ':amount': -taken, ':taken': taken, ':now': now },
          },
        };

  /** The debit `debitId` and how much of it a refund gives back (`asked`, or all it has left), or why it cannot. */
  async function refundable(debitId: string, asked: number | undefined): Promise<{ debit: LedgerEntry; amount: number }> {
    const debit = await byId(debitId);
    if (!debit) throw new TransactionNotFoundError(debitId);
    if (debit.type !== 'debit') throw new NotRefundableError(debitId, `it is a ${debit.type}, and only debits are refunded`);
    if (debit.status !== 'completed') throw new NotRefundableError(debitId, `the debit is ${debit.status} and took nothing`);
    const refunded = debit.refunded_micro_usd ?? 0;
    const amount = asked ?? debit.amount - refunded;
    if (amount <= 0 || amount > debit.amount - refunded) throw new RefundExceedsDebitError(debitId, debit.amount, refunded, amount);
    return { debit, amount };
  }

  /**
   * Writes entry `id`: reads the head, builds the items (`build` may read
   * more: the balance, the debit refunded), sends them. A position taken
   * meanwhile, or a conflicting transaction, is tried again with a fresh
   * head; a refused id item means `id` was recorded before, and `replay`
   * answers with that entry. `refused` turns the failed condition of one of
   * the entry's other items (the account's, a caller's extra) into an error,
   * or `retry` (read and build again).
   */
  async function append<R>(
    id: string,
    accountId: string,
    build: (at: LedgerHead) => Promise<{ items: TransactItem[]; result: R }>,
    options: { send?: SendItems; replay: (existing: LedgerEntry) => R; refused: (item: number) => 'retry' | Error },
  ): Promise<R> {
    const send = options.send ?? ((items) => db.send(new TransactWriteCommand({ TransactItems: items })).then(() => undefined));
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const built = await build(await head(accountId));
      try {
        await send(built.items);
        return built.result;
      } catch (error) {
        const all = cancellationReasons(error);
        if (!all) throw error;
        const reasons = all.slice(0, built.items.length);
        const failed = reasons.flatMap((r, i) => (r.Code === 'ConditionalCheckFailed' ? [i] : []));
        // The caller's own items refused it (debitWith): the caller decides, even when the id is taken (by a write that was not this one).
        if (all.slice(built.items.length).some((r) => r.Code === 'ConditionalCheckFailed')) throw error;
        if (failed.includes(ITEM.id)) {
          const existing = await byId(id);
          if (existing) return options.replay(existing);
        }
        const lostPosition = [ITEM.entry, ITEM.copy, ITEM.head].some((i) => failed.includes(i));
        if (failed.length > 0 && !lostPosition) {
          const answer = options.refused(failed[0]!);
          if (answer !== 'retry') throw answer;
        } else if (failed.length === 0 && !reasons.some((r) => r.Code === 'TransactionConflict')) {
          throw error; // Something else went wrong.
        }
        await pause(attempt);
      }
    }
    throw new UnavailableError('Too many concurrent changes to this account’s ledger; retry.');
  }

  const view = (existing: LedgerEntry) => transactionView(existing);
  /** The account item's failed condition on a credit or refund: the account is gone (or never was). */
  const accountGone = (accountId: string) => (item: number) => (item === ITEM.account ? new NotFoundError(`No account ${accountId}.`) : ('retry' as const));

  return {
    head,
    byId,

    /** Records a completed credit and raises the balance by it. */
    async credit(input: { id: string; accountId: string; amountMicroUsd: number; description: string | null; metadata?: Record<string, unknown> }) {
      const entry: NewEntry = { ...input, type: 'credit', status: 'completed', metadata: input.metadata ?? null };
      return append(
        input.id,
        input.accountId,
        async (at) => {
          const built = entryItems(at, entry, accountChange(input.accountId, input.amountMicroUsd));
          return { items: built.items, result: built.transaction };
        },
        { replay: view, refused: accountGone(input.accountId) },
      );
    },

    /**
     * Takes `amountMicroUsd` from the balance, never below zero: all of it
     * when the balance holds it (`completed`), else what there is
     * (`completed`, `amount` = what was taken, `metadata` adds
     * `requested_micro_usd` and `shortfall_micro_usd`), else nothing (`failed`,
     * `amount` = what was asked, the balance untouched). The result's
     * `shortfallMicroUsd` > 0 is the caller's `out_of_funds`. The balance
     * condition is the one read: a balance that moved meanwhile is read again.
     * `send`, when given, sends the items first in the caller's own transaction.
     */
    async debit(input: DebitInput, send?: SendItems): Promise<DebitResult> {
      if (!Number.isSafeInteger(input.amountMicroUsd) || input.amountMicroUsd <= 0) throw new RangeError('a debit is a positive integer of microdollars');
      const asked = input.amountMicroUsd;
      return append<DebitResult>(
        input.id,
        input.accountId,
        async (at) => {
          const balance = await balanceOf(input.accountId);
          if (balance === undefined) throw new NotFoundError(`No account ${input.accountId}.`);
          const taken = Math.max(0, Math.min(balance, asked));
          const shortfall = asked - taken;
          const entry: NewEntry = {
            id: input.id,
            accountId: input.accountId,
            type: 'debit',
            status: taken > 0 ? 'completed' : 'failed',
            amountMicroUsd: taken > 0 ? taken : asked,
            description: input.description,
            metadata: { ...input.metadata, ...(shortfall > 0 ? { requested_micro_usd: asked, shortfall_micro_usd: shortfall } : {}) },
            internal: { requested_micro_usd: asked, shortfall_micro_usd: shortfall, refunded_micro_usd: 0 },
          };
          const { items, transaction } = entryItems(at, entry, (now) => balanceTaken(input.accountId, taken, asked, now));
          return { items, result: { transaction, requestedMicroUsd: asked, shortfallMicroUsd: shortfall, replayed: false } };
        },
        {
          send,
          replay: (existing) => ({
            transaction: view(existing),
            requestedMicroUsd: existing.requested_micro_usd ?? existing.amount,
            shortfallMicroUsd: existing.shortfall_micro_usd ?? 0,
            replayed: true,
          }),
          // The balance moved since it was read (or the account went): read it again.
          refused: () => 'retry',
        },
      );
    },

    /**
     * Records a completed refund of a completed debit and raises the balance
     * by it: by default all the debit has left to refund. The debit keeps
     * `refunded_micro_usd`, raised in the same transaction on condition that
     * it stays within the debit's amount, so refunds never add up to more;
     * a refund that lost that race reads the debit again and is refused.
     */
    async refund(input: { id: string; debitId: string; amountMicroUsd?: number; description?: string }) {
      const first = await refundable(input.debitId, input.amountMicroUsd);
      const accountId = first.debit.user_id;
      let checked: typeof first | undefined = first;
      return append(
        input.id,
        accountId,
        async (at) => {
          const { debit, amount } = checked ?? (await refundable(input.debitId, input.amountMicroUsd));
          checked = undefined;
          const entry: NewEntry = {
            id: input.id,
            accountId,
            type: 'refund',
            status: 'completed',
            amountMicroUsd: amount,
            description: input.description ?? `Refund of ${debit.description ?? `transaction ${debit.id}`}`,
            metadata: { refunds_transaction_id: debit.id },
          };
          const built = entryItems(at, entry, accountChange(accountId, amount));
          const refunded: TransactItem = {
            Update: {
              TableName: tableName,
              Key: keys.transaction(accountId, debit.seq),
              UpdateExpression: 'ADD refunded_micro_usd :amount',
              ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(refunded_micro_usd) OR refunded_micro_usd <= :most)',
              ExpressionAttributeValues: { ':amount': amount, ':most': debit.amount - amount },
            },
          };
          return { items: [...built.items, refunded], result: built.transaction };
        },
        { replay: view, refused: accountGone(accountId) },
      );
    },

    /** The day counters of the days `from`…`to` (inclusive), oldest first; only days with transactions have one. */
    async days(accountId: string, from: string, to: string): Promise<DayCounter[]> {
      return (await queryAll(db, dayRange(accountId, from, to))).map(dayCounterOf);
    },

    /** The first (`oldest`) or last day counter of `from`…`to`: one item, read to map a date range onto positions. */
    async edgeDay(accountId: string, from: string, to: string, oldest: boolean): Promise<DayCounter | undefined> {
      const { Items } = await db.send(new QueryCommand({ ...dayRange(accountId, from, to), ScanIndexForward: oldest, Limit: 1 }));
      const item = Items?.[0];
      return item ? dayCounterOf(item) : undefined;
    },

    /**
     * Block counters from the one holding `top` down to the one holding
     * `bottom` (`newestFirst`), or up from `bottom`, read as the caller goes:
     * a few first (a page near that end needs one or two), then more a Query.
     */
    async *blocks(accountId: string, span: { top: number; bottom: number; newestFirst: boolean }): AsyncGenerator<BlockCounter> {
      let startKey: Record<string, unknown> | undefined;
      let limit = FIRST_BLOCKS_READ;
      do {
        const page = await db.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
            ExpressionAttributeValues: {
              ':pk': keys.transactionTotals(accountId).pk,
              ':from': keys.transactionBlock(accountId, blockOf(span.bottom)).sk,
              ':to': keys.transactionBlock(accountId, blockOf(span.top)).sk,
            },
            ScanIndexForward: !span.newestFirst,
            ConsistentRead: true,
            Limit: limit,
            ExclusiveStartKey: startKey,
          }),
        );
        for (const item of page.Items ?? []) yield { block: Number(item.block), counts: countsOf(item) };
        startKey = page.LastEvaluatedKey;
        limit = Math.min(MAX_BLOCKS_READ, limit * 4);
      } while (startKey);
    },

    /**
     * Entries at positions `top` down to `bottom`, newest first: from the
     * ledger itself, or from the stream of one (type, status). At most
     * `limit` (the Query's own Limit: nothing read is thrown away), or every
     * one that passes `filter` (a FilterExpression: every entry in the range
     * is read, only the matching ones come back).
     */
    async entries(
      accountId: string,
      range: { top: number; bottom: number; combo?: Combo },
      options: { limit?: number; filter?: { expression: string; names?: Record<string, string>; values: Record<string, unknown> } } = {},
    ): Promise<LedgerEntry[]> {
      if (range.top < range.bottom || options.limit === 0) return [];
      const keyAt = (seq: number) => {
        if (!range.combo) return keys.transaction(accountId, seq).sk;
        const [type, status] = splitCombo(range.combo);
        return keys.transactionOfKind(accountId, type, status, seq).sk;
      };
      const input = {
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': keys.transactionTotals(accountId).pk,
          ':from': keyAt(range.bottom),
          ':to': keyAt(range.top),
          ...options.filter?.values,
        },
        ...(options.filter ? { FilterExpression: options.filter.expression } : {}),
        ...(options.filter?.names ? { ExpressionAttributeNames: options.filter.names } : {}),
        ScanIndexForward: false,
        ConsistentRead: true,
      };
      if (options.limit === undefined) return (await queryAll(db, input)).map(toEntry);
      const found: Array<Record<string, unknown>> = [];
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await db.send(new QueryCommand({ ...input, Limit: options.limit - found.length, ExclusiveStartKey: startKey }));
        found.push(...(page.Items ?? []));
        startKey = page.LastEvaluatedKey;
      } while (startKey && found.length < options.limit);
      return found.map(toEntry);
    },
  };
}

export type LedgerRepo = ReturnType<typeof ledgerRepo>;
