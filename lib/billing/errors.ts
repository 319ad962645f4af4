import { ConflictError, NotFoundError } from '#platform/errors.js';

const usd = (micro: number): string => `${(micro / 1_000_000).toFixed(6).replace(/\.?0+$/, '')} USD`;

export class TransactionNotFoundError extends NotFoundError {
  constructor(id: string) {
    super(`No transaction ${id}.`);
  }
}

/** Only a completed debit took money that can be given back. */
export class NotRefundableError extends ConflictError {
  constructor(id: string, why: string) {
    super('not_refundable', `Transaction ${id} cannot be refunded: ${why}.`);
  }
}

/** The refunds of a debit never add up to more than it took. */
export class RefundExceedsDebitError extends ConflictError {
  constructor(id: string, taken: number, refunded: number, asked: number) {
    super(
      'refund_exceeds_debit',
      `Debit ${id} took ${usd(taken)} and ${usd(refunded)} of it is refunded already, so at most ${usd(taken - refunded)} can be refunded; ${usd(asked)} was asked.`,
    );
  }
}
