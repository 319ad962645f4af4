import { type FieldError, InvalidParameterError } from '#platform/errors.js';
import { type LedgerRepo, transactionView } from './ledger-repository.js';
import {
  ALL_COMBOS,
  type BillingTransaction,
  BLOCK_SIZE,
  type BlockCounter,
  type Combo,
  type ComboCounts,
  type LedgerEntry,
  selectedCombos,
  type TransactionStatus,
  type TransactionType,
} from './model.js';

/**
 * GET /v1/billing/transactions: a page at an offset, with the count of
 * everything the filters select, read from the ledger's counters rather
 * than its entries (docs/data-model.md, Billing, says what each filter
 * combination reads):
 *
 * - the dates become a range of positions (the first and last position of
 *   the days in range, from the day counters); without dates, the whole
 *   ledger (the head);
 * - unfiltered, positions have no gaps: the count is the range's length and
 *   the page is the positions `hi - offset` down, read exactly;
 * - with `types`/`statuses`, the count sums the day counters (or the
 *   head's); the page's first entry is found by walking block counters down
 *   from the newest, and only the matching entries are read, from the
 *   stream of each selected (type, status);
 * - `min_amount`, `max_amount` and `search` cannot be counted ahead: every
 *   entry of the range (of the selected types and statuses) is read, at
 *   most MAX_SCANNED of them.
 */

/** Most entries one filtered-by-content request reads (about 10 MB); more is a 400 asking for narrower dates. */
export const MAX_SCANNED = 20_000;

export interface TransactionFilters {
  types?: TransactionType[];
  statuses?: TransactionStatus[];
  /** UTC days, `YYYY-MM-DD`, both inclusive. */
  startDate?: string;
  endDate?: string;
  /** Inclusive bounds on `amount`, in microdollars (the USD bounds rounded inwards). */
  minMicroUsd?: number;
  maxMicroUsd?: number;
  /** Lower case. */
  search?: string;
}

/** What the list reads of the ledger. */
export type LedgerReads = Pick<LedgerRepo, 'head' | 'days' | 'edgeDay' | 'blocks' | 'entries'>;

/** The filters of a parsed query. Its values are checked already (lib/billing/schemas.ts). */
export function filtersOf(query: {
  types?: string;
  statuses?: string;
  start_date?: string;
  end_date?: string;
  min_amount?: string;
  max_amount?: string;
  search?: string;
}): TransactionFilters {
  const list = <T>(value: string | undefined) => (value === undefined ? undefined : ([...new Set(value.split(',').map((v) => v.trim()))] as T[]));
  return {
    types: list<TransactionType>(query.types),
    statuses: list<TransactionStatus>(query.statuses),
    startDate: query.start_date,
    endDate: query.end_date,
    minMicroUsd: query.min_amount === undefined ? undefined : microAtLeast(Number(query.min_amount)),
    maxMicroUsd: query.max_amount === undefined ? undefined : microAtMost(Number(query.max_amount)),
    search: query.search ? query.search.toLowerCase() : undefined,
  };
}

/** The least amount in microdollars whose USD value (amount / 1e6) is at least `usd`: exact where `usd * 1e6` is not. */
export function microAtLeast(usd: number): number {
  let micro = Math.round(usd * 1_000_000);
  while (micro / 1_000_000 < usd) micro++;
  while ((micro - 1) / 1_000_000 >= usd) micro--;
  return micro;
}

/** The greatest amount in microdollars whose USD value is at most `usd`. */
export function microAtMost(usd: number): number {
  let micro = Math.round(usd * 1_000_000);
  while (micro / 1_000_000 > usd) micro--;
  while ((micro + 1) / 1_000_000 <= usd) micro++;
  return micro;
}

interface Range {
  lo: number;
  hi: number;
  /** `hi` is the ledger's last position (no end date): nothing newer lies in its block. */
  hiIsLast: boolean;
  /** Per (type, status), in range; read only when the filters need them. */
  counts?: ComboCounts;
}

const FIRST_DAY = '0000-01-01';
const LAST_DAY = '9999-12-31';
const sum = (combos: readonly Combo[], counts: ComboCounts = {}) => combos.reduce((n, c) => n + (counts[c] ?? 0), 0);
const newestFirst = (lists: LedgerEntry[][]) => lists.flat().sort((a, b) => b.seq - a.seq);

/** The positions the dates allow, or none: days follow positions (an entry's `created_at` is never before the one it follows). */
async function positions(ledger: LedgerReads, accountId: string, filters: TransactionFilters, withCounts: boolean): Promise<Range | undefined> {
  if (!filters.startDate && !filters.endDate) {
    const head = await ledger.head(accountId);
    return head.seq === 0 ? undefined : { lo: 1, hi: head.seq, hiIsLast: true, counts: head.counts };
  }
  const from = filters.startDate ?? FIRST_DAY;
  const to = filters.endDate ?? LAST_DAY;
  const hiIsLast = !filters.endDate;
  if (!withCounts) {
    const [first, last] = await Promise.all([ledger.edgeDay(accountId, from, to, true), ledger.edgeDay(accountId, from, to, false)]);
    return first && last ? { lo: first.first_seq, hi: last.last_seq, hiIsLast } : undefined;
  }
  const days = await ledger.days(accountId, from, to);
  if (days.length === 0) return undefined;
  const counts: ComboCounts = {};
  for (const day of days) for (const combo of ALL_COMBOS) counts[combo] = (counts[combo] ?? 0) + (day.counts[combo] ?? 0);
  return { lo: days[0]!.first_seq, hi: days.at(-1)!.last_seq, hiIsLast, counts };
}

export async function listTransactions(
  ledger: LedgerReads,
  accountId: string,
  filters: TransactionFilters,
  page: { page: number; limit: number },
): Promise<{ transactions: BillingTransaction[]; totalCount: number }> {
  const combos = selectedCombos(filters.types, filters.statuses);
  const every = combos.length === ALL_COMBOS.length;
  const range = await positions(ledger, accountId, filters, !every);
  if (!range) return { transactions: [], totalCount: 0 };
  // Streams with nothing in range are not read.
  const present = every ? combos : combos.filter((c) => (range.counts?.[c] ?? 0) > 0);
  const selected = every ? range.hi - range.lo + 1 : sum(present, range.counts);
  const offset = (page.page - 1) * page.limit;
  if (filters.minMicroUsd !== undefined || filters.maxMicroUsd !== undefined || filters.search !== undefined) {
    const matches = await scan(ledger, accountId, filters, every ? undefined : present, range, selected);
    return { transactions: matches.slice(offset, offset + page.limit).map(transactionView), totalCount: matches.length };
  }
  if (offset >= selected) return { transactions: [], totalCount: selected };
  const entries = every
    ? await ledger.entries(accountId, { top: range.hi - offset, bottom: Math.max(range.lo, range.hi - offset - page.limit + 1) })
    : await seek(ledger, accountId, present, range, selected, offset, page.limit);
  return { transactions: entries.map(transactionView), totalCount: selected };
}

/**
 * The entries of a `types`/`statuses` page. Block counters are walked from
 * the end of the range nearer the page (newest first for the first half of
 * the matches, oldest first for the rest) until the blocks that hold the
 * page are known; then each selected stream is read within those blocks
 * only. What is read is the page, plus at most what shares its edge blocks,
 * plus the counters between the page and the nearer end (one item per 100
 * positions).
 */
async function seek(
  ledger: LedgerReads,
  accountId: string,
  combos: Combo[],
  range: Range,
  selected: number,
  offset: number,
  limit: number,
): Promise<LedgerEntry[]> {
  const last = Math.min(selected, offset + limit);
  const fromTop = offset + last <= selected;
  // Matches before the page along the walk, and how many the page's blocks must hold to cover it.
  const before = fromTop ? offset : selected - last;
  let passed = 0;
  let held = 0;
  let window: { low: number; high: number } | undefined;
  const shares: ComboCounts = {};
  for await (const block of ledger.blocks(accountId, { top: range.hi, bottom: range.lo, newestFirst: fromTop })) {
    const counts = await countsInRange(ledger, accountId, combos, range, block);
    const here = sum(combos, counts);
    if (!window) {
      if (passed + here <= before) {
        passed += here;
        continue;
      }
      window = { low: block.block, high: block.block };
    }
    window = { low: Math.min(window.low, block.block), high: Math.max(window.high, block.block) };
    for (const combo of combos) shares[combo] = (shares[combo] ?? 0) + (counts[combo] ?? 0);
    held += here;
    if (passed + held >= before + (last - offset)) break;
  }
  if (!window) return [];
  const span = { top: Math.min(range.hi, (window.high + 1) * BLOCK_SIZE), bottom: Math.max(range.lo, window.low * BLOCK_SIZE + 1) };
  // Matches newer than the window: the ones passed walking down, or all but those up to the window's top walking up.
  const above = fromTop ? passed : selected - passed - held;
  const lists = await Promise.all(
    combos.filter((c) => (shares[c] ?? 0) > 0).map((combo) => ledger.entries(accountId, { ...span, combo }, { limit: shares[combo] })),
  );
  return newestFirst(lists).slice(offset - above, last - above);
}

/**
 * A block's counts within the range. A block the range cuts (its end date
 * before the ledger's last entry, its start date after the block's first
 * position) also counts entries outside it: those in range are counted by
 * reading them, at most a block.
 */
async function countsInRange(ledger: LedgerReads, accountId: string, combos: Combo[], range: Range, block: BlockCounter): Promise<ComboCounts> {
  const first = block.block * BLOCK_SIZE + 1;
  const lastPosition = (block.block + 1) * BLOCK_SIZE;
  const cutAbove = lastPosition > range.hi && !range.hiIsLast;
  const cutBelow = first < range.lo;
  if (!cutAbove && !cutBelow) return block.counts;
  const span = { top: Math.min(range.hi, lastPosition), bottom: Math.max(range.lo, first) };
  return Object.fromEntries(await Promise.all(combos.map(async (combo) => [combo, (await ledger.entries(accountId, { ...span, combo })).length])));
}

/** The parameter a too-broad content filter is blamed on: the first one given. */
const scanParameter = (filters: TransactionFilters): string =>
  filters.search !== undefined ? 'search' : filters.minMicroUsd !== undefined ? 'min_amount' : 'max_amount';

/** Every entry of the range (of the `combos` streams, or the whole ledger) that passes the content filters, newest first. */
async function scan(
  ledger: LedgerReads,
  accountId: string,
  filters: TransactionFilters,
  combos: Combo[] | undefined,
  range: Range,
  toRead: number,
): Promise<LedgerEntry[]> {
  if (toRead > MAX_SCANNED) {
    const error: FieldError = {
      name: scanParameter(filters),
      location: 'query',
      code: 'too_broad',
      reason: `search, min_amount and max_amount read every transaction of the dates asked (${toRead} here, at most ${MAX_SCANNED}); narrow them with start_date and end_date`,
    };
    throw new InvalidParameterError([error]);
  }
  const conditions: string[] = [];
  const values: Record<string, unknown> = {};
  if (filters.minMicroUsd !== undefined) {
    conditions.push('#amount >= :min');
    values[':min'] = filters.minMicroUsd;
  }
  if (filters.maxMicroUsd !== undefined) {
    conditions.push('#amount <= :max');
    values[':max'] = filters.maxMicroUsd;
  }
  if (filters.search !== undefined) {
    conditions.push('contains(search_text, :search)');
    values[':search'] = filters.search;
  }
  const amounts = filters.minMicroUsd !== undefined || filters.maxMicroUsd !== undefined;
  const filter = { expression: conditions.join(' AND '), values, ...(amounts ? { names: { '#amount': 'amount' } } : {}) };
  const span = { top: range.hi, bottom: range.lo };
  if (!combos) return ledger.entries(accountId, span, { filter });
  return newestFirst(await Promise.all(combos.map((combo) => ledger.entries(accountId, { ...span, combo }, { filter }))));
}
