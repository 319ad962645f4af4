import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { BillingTransactionsList } from '#billing/contracts/billing-transactions-list.js';
import { ledgerRepo } from '#billing/ledger-repository.js';
import { filtersOf, type LedgerReads, listTransactions } from '#billing/transactions.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';

/** GET /v1/billing/transactions: the caller's ledger, newest first, a page by number with the count of what the filters select. */
export const makeHandler = (deps: { tokens: TokensRepo; ledger: LedgerReads } = { tokens: tokensRepo(), ledger: ledgerRepo() }) =>
  httpHandler(BillingTransactionsList, { auth: bearerAuth(deps.tokens) }, async ({ principal, query }) => {
    const { page, limit } = query;
    const { transactions, totalCount } = await listTransactions(deps.ledger, principal.accountId, filtersOf(query), { page, limit });
    const totalPages = Math.ceil(totalCount / limit);
    return json(200, {
      transactions,
      pagination: { page, limit, total_count: totalCount, total_pages: totalPages, has_next: page < totalPages, has_prev: page > 1 },
    });
  });

export const handler = makeHandler();
