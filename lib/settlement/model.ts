import type { ActivityCounts } from '#billing/index.js';
import type { AccountEvent } from '#events/account-events.js';
import type { TransactItem } from '#platform/table/transactions.js';

/**
 * The parts a settlement's transaction is built of, by name. A refusal is
 * reported by the name of the part that refused, never by the position of
 * an item: the parts' sizes vary (the ledger's debit writes several items,
 * a subject as many as its change moves).
 */
export type PartName =
  /** The ledger's items of the work's one debit (billing); always first, as the ledger asks. */
  | 'debit'
  /** The work's own items: the run or request, its event page, its machine, its step… */
  | 'subject'
  /** The cost recorded into the account's usage windows. */
  | 'usage'
  /** The counts of the activity day the work starts or ends on. */
  | 'day'
  /** The account's event that tells of the end (webhooks deliver it). */
  | 'account_event'
  /** The slot of the account's work in progress, taken at the start, given back at the end. */
  | 'slot';

/** A part of a transaction: its name and its items, in the order they are sent. */
export interface Part {
  name: PartName;
  items: TransactItem[];
}

/** What the work's own items are built from: the extra-funded part of the cost this settlement records. */
export interface Recorded {
  extraMicroUsd: number;
}

/** The ending of work: what the end counts, tells and gives back, and the debit it pays. */
export interface WorkEnd {
  /** When it ended: the activity day its counts go to and the time of its account event. */
  at: Date;
  /** What the end counts in that day (its cost, its node executions). */
  activity: ActivityCounts;
  event?: AccountEvent;
  /** True when the work holds a slot of the account's work in progress (taken at its start). */
  releasesSlot: boolean;
  /**
   * The work's extra-funded usage recorded before this settlement: the one
   * debit is all of it plus what this one records, since nothing of it is
   * debited before the end.
   */
  extraBeforeMicroUsd: number;
  /** The debit's id (the same on every retry: billing's transactionIdFor), description and metadata. */
  debit: { id: string; description: string; metadata: Record<string, unknown> };
}

/**
 * One settlement: work used something (a model turn) or ended (a run, a
 * workflow request), with everything that moves with it, in one transaction.
 */
export interface Work<T> {
  accountId: string;
  /** Built for each attempt (the usage recorded may change between attempts): the work's own items and what it is once they are written. */
  subject(recorded: Recorded): { items: TransactItem[]; result: T };
  /** The cost recorded into the usage windows now (0 or absent: none). */
  usageMicroUsd?: number;
  /** Present when this settlement ends the work. */
  end?: WorkEnd;
  /**
   * What is settled instead when DynamoDB refuses this transaction for what
   * it holds (a value nested too deep, an item too large): the same would be
   * refused on every try, and work that cannot end keeps its slot, its
   * machine and its debit unpaid. Settled once, without a further fallback.
   */
  unrecordable?: () => Work<T> | Promise<Work<T>>;
  /** What follows the commit, once it happened (notices, metrics, the next work moved on); not run for a refused settlement. */
  afterCommit?: (settled: Settled<T>) => Promise<void>;
}

export interface Settled<T> {
  settled: true;
  result: T;
  /** The extra-funded part of the cost this settlement recorded. */
  extraMicroUsd: number;
  /** True when the work's `unrecordable` form was written instead of it. */
  unrecordable: boolean;
}

/** A settlement refused by the work's own items: something changed the work first; the caller reads it again and decides. */
export interface Refused {
  settled: false;
  refusedBy: 'subject';
}

export type Settlement<T> = Settled<T> | Refused;

/** The start of work: its own items, its count in the day, and the slot of work in progress it takes. */
export interface WorkStart {
  accountId: string;
  subject: TransactItem[];
  /** When it starts, and what it counts in that day (a request, a run). */
  at: string;
  activity: ActivityCounts;
  /** The account's ceiling on work in progress, when the work takes a slot. */
  concurrencyLimit?: number;
}
