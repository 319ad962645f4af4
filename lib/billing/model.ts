/**
 * The billing transaction of the specification (Billing transaction) and the
 * names the ledger's counters use. Amounts are integer microdollars.
 */
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
