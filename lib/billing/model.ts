/**
 * The billing transaction of the specification (Billing transaction), the
 * names the ledger's counters use, and the daily activity counts. Amounts
 * are integer microdollars.
 */

import type { TransactItem } from '#platform/table/transactions.js';
export const TRANSACTION_TYPES = ['credit', 'debit', 'refund'] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];
export const TRANSACTION_STATUSES = ['pending', 'completed', 'failed'] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

export interface BillingTransaction {
  id: string;
  user_id: string;
  amount: number;
  currency: string;
  type: TransactionType;
  status: TransactionStatus;
  description: string | null;
  metadata: Record<string, unknown> | null;
  processor_payment_intent_id: string | null;
  processor_charge_id: string | null;
  created_at: string;
  updated_at: string;
}

/** A (type, status) pair: each counter item holds one count per pair, under this attribute name (`debit_completed`). */
export type Combo = `${TransactionType}_${TransactionStatus}`;
export const comboOf = (type: TransactionType, status: TransactionStatus): Combo => `${type}_${status}`;
export const ALL_COMBOS: readonly Combo[] = TRANSACTION_TYPES.flatMap((type) => TRANSACTION_STATUSES.map((status) => comboOf(type, status)));

/** The pairs a `types` × `statuses` filter selects (every pair when neither is given). */
export function selectedCombos(types?: readonly TransactionType[], statuses?: readonly TransactionStatus[]): Combo[] {
  const ts = types?.length ? types : TRANSACTION_TYPES;
  const ss = statuses?.length ? statuses : TRANSACTION_STATUSES;
  return ts.flatMap((type) => ss.map((status) => comboOf(type, status)));
}

export const splitCombo = (combo: Combo): [TransactionType, TransactionStatus] => combo.split('_') as [TransactionType, TransactionStatus];

/** `2026-01-31T23:59:59.999Z` → `2026-01-31`: days are UTC days. */
export const utcDay = (at: string | Date): string => (typeof at === 'string' ? new Date(at) : at).toISOString().slice(0, 10);

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** A real calendar day written `YYYY-MM-DD`. */
export const isDay = (value: string): boolean => DAY.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && utcDay(`${value}T00:00:00Z`) === value;

/** The day `n` days after `day` (before, for a negative `n`). */
export const addDays = (day: string, n: number): string => utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000));

/**
 * The text `search` is matched against: the description and every metadata
 * value, lower-cased, one a line. A search holds no control character (the
 * query schema refuses them), so a match never spans two values.
 */
export function searchTextOf(description: string | null, metadata: Record<string, unknown> | null): string {
  const values = Object.values(metadata ?? {}).map((value) => (typeof value === 'string' ? value : JSON.stringify(value)));
  return [description ?? '', ...values].join('\n').toLowerCase();
}

/** What one change adds to its account's day of activity (activityUpdate). */
export interface ActivityCounts {
  /** Usage cost of the day, plan and extra funded, in microdollars. */
  cost_micro_usd?: number;
  /** Workflow requests created. */
  requests?: number;
  /** Node executions settled. */
  nodes?: number;
  /** Runs created. */
  runs?: number;
}

/** One day of `GET /v1/activity/daily`. */
export interface DailyActivityEntry {
  date: string;
  /** USD. */
  total_cost: number;
  request_count: number;
  node_count: number;
  run_count: number;
}

/** Positions per block counter item. */
export const BLOCK_SIZE = 100;
export const blockOf = (seq: number): number => Math.floor((seq - 1) / BLOCK_SIZE);

export type ComboCounts = Partial<Record<Combo, number>>;
export interface LedgerHead {
  /** The last position taken; 0 for an empty ledger. */
  seq: number;
  /** The newest entry's `created_at`: a later entry never gets an earlier one, so days follow positions. */
  lastAt?: string;
  counts: ComboCounts;
}
export interface DayCounter {
  day: string;
  first_seq: number;
  last_seq: number;
  counts: ComboCounts;
}
export interface BlockCounter {
  block: number;
  counts: ComboCounts;
}

/** An entry as stored: the transaction plus its position and what the wallet needs. */
export interface LedgerEntry extends BillingTransaction {
  seq: number;
  /** Debits: what was asked, and what the balance could not cover (recorded, never taken). */
  requested_micro_usd?: number;
  shortfall_micro_usd?: number;
  /** Debits: how much of `amount` refunds have given back. */
  refunded_micro_usd?: number;
}

export interface NewEntry {
  id: string;
  accountId: string;
  type: TransactionType;
  status: TransactionStatus;
  amountMicroUsd: number;
  description: string | null;
  metadata: Record<string, unknown> | null;
  /** Stored with the entry, never shown: see LedgerEntry. */
  internal?: Pick<LedgerEntry, 'requested_micro_usd' | 'shortfall_micro_usd' | 'refunded_micro_usd'>;
}

export interface DebitInput {
  /** Deterministic (transactionIdFor): a retried or redelivered debit finds the first one instead of taking the money twice. */
  id: string;
  accountId: string;
  amountMicroUsd: number;
  description: string;
  metadata?: Record<string, unknown>;
}

export interface DebitResult {
  transaction: BillingTransaction;
  /** What was asked; `transaction.amount` is what the balance gave (all of it, part, or, for a failed debit, nothing). */
  requestedMicroUsd: number;
  /** What the balance could not cover: > 0 means the wallet ran dry (`out_of_funds`). */
  shortfallMicroUsd: number;
  /** True when this id was recorded before (a retry): nothing was taken now. */
  replayed: boolean;
}

/** Sends the debit's items, first in the caller's own TransactWriteItems (debitWith). */
export type SendItems = (items: TransactItem[]) => Promise<void>;
