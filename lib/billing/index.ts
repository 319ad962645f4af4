/**
 * What other features use of billing: the wallet's writes (credits and
 * refunds by the operator commands, debits by metering), and the daily
 * activity counters that features raise inside their own transactions.
 */
import type { TableRef } from '#platform/table/table.js';
import { nameBasedUuid } from '#platform/uuid.js';
import { ledgerRepo, transactionView } from './ledger-repository.js';
import type { DebitInput, SendItems } from './model.js';

export { activityUpdate } from './activity-repository.js';
export type { ActivityCounts, BillingTransaction, DebitInput, DebitResult, SendItems, TransactionStatus, TransactionType } from './model.js';
export { utcDay } from './model.js';

/**
 * The id of the one transaction `name` stands for (`debit:run:<run id>`,
 * `debit:workflow_request:<id>`): the same on every retry and redelivery,
 * so the debit is recorded once.
 */
export const transactionIdFor = (name: string): string => nameBasedUuid(`billing:${name}`);

export function billing(table?: TableRef) {
  const ledger = ledgerRepo(table);
  return {
    /** A completed credit, the balance raised by it (account:credit, account:create's opening balance). */
    credit: ledger.credit,
    /**
     * Takes an amount from the balance, never below zero; what it could not
     * take is `shortfallMicroUsd` (the caller's `out_of_funds`). Recorded once
     * per id: a retry answers the first debit with `replayed: true`.
     */
    debit: (input: DebitInput) => ledger.debit(input),
    /**
     * The same debit written inside the caller's own transaction: `send`
     * receives the debit's items and must send
     * them first in its TransactWriteItems, its own items after, and let the
     * error of a cancelled transaction through. A debit item's refusal (a
     * balance or position that moved) calls `send` again with fresh items; a
     * refusal of the caller's own items comes back to it as the error.
     */
    debitWith: (input: DebitInput, send: SendItems) => ledger.debit(input, send),
    /** A completed refund of a completed debit, at most what it has left (by default all of it); the balance raised by it. */
    refund: ledger.refund,
    /** A transaction by id, as the API shows it. */
    async transaction(id: string) {
      const entry = await ledger.byId(id);
      return entry ? transactionView(entry) : undefined;
    },
  };
}
