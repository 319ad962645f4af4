/**
 * Every DynamoDB key of the service is built here (tests use the same
 * builders). The layout is documented in docs/data-model.md.
 */
export type Key = {
  pk: string;
  sk: string;
};

export const keys = {
  account: (accountId: string): Key => ({ pk: `ACCOUNT#${accountId}`, sk: 'ACCOUNT' }),
  /** Uniqueness guard and login lookup for an email address. */
  accountEmail: (email: string): Key => ({ pk: `EMAIL#${email.trim().toLowerCase()}`, sk: 'EMAIL' }),
  session: (sessionHash: string): Key => ({ pk: `SESSION#${sessionHash}`, sk: 'SESSION' }),
  /** The credential item the bearer middleware reads, keyed by the token's SHA-256. */
  tokenByHash: (tokenHash: string): Key => ({ pk: `TOKEN#${tokenHash}`, sk: 'TOKEN' }),
  /** The account's view of a token, keyed by its public id (list and revoke). */
  accountToken: (accountId: string, tokenId: string): Key => ({ pk: `ACCOUNT#${accountId}`, sk: `TOKEN#${tokenId}` }),
  accountTokenPrefix: (accountId: string) => ({ pk: `ACCOUNT#${accountId}`, skPrefix: 'TOKEN#' }),
  transaction: (accountId: string, createdAt: string, transactionId: string): Key => ({
    pk: `ACCOUNT#${accountId}`,
    sk: `TXN#${createdAt}#${transactionId}`,
  }),
  transactionPrefix: (accountId: string) => ({ pk: `ACCOUNT#${accountId}`, skPrefix: 'TXN#' }),
  /** Powertools idempotency records; the key already carries the scope hash. */
  idempotency: (idempotencyKey: string): Key => ({ pk: idempotencyKey, sk: 'IDEMPOTENCY' }),
  idempotencyPrefix: 'IDEMPOTENCY',
  /** Gsi1 partition listing every account, for the operator CLI. */
  accountsIndex: () => ({ gsi1pk: 'ACCOUNTS' }),
} as const;

/** Epoch seconds, the unit DynamoDB TTL reads. */
export const ttlFromDate = (date: Date): number => Math.floor(date.getTime() / 1000);
