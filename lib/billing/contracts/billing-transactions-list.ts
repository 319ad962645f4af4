import { defineEndpoint } from '#platform/http/contract.js';
import { ListTransactionsQuery } from '../schemas.js';
import { BILLING_TAG } from './tags.js';

export const BillingTransactionsList = defineEndpoint({
  id: 'BillingTransactionsList',
  method: 'GET',
  path: '/v1/billing/transactions',
  handler: 'functions/billing/transactions-list.ts',
  auth: 'bearer',
  query: ListTransactionsQuery,
  table: 'read',
  operationId: 'listBillingTransactions',
  summary: "List the caller's billing transactions",
  description:
    'Newest first, paged by `page` and `limit`; `pagination.total_count` counts every transaction the filters select. Filters combine (all must hold): dates are UTC days and both ends are inclusive; `min_amount`/`max_amount` are USD and inclusive; `search` is a case-insensitive substring of the description or of a metadata value. `search`, `min_amount` and `max_amount` read every transaction of the dates asked: over 20 000 of them is 400 `invalid_parameter` asking for narrower dates.',
  tags: [BILLING_TAG],
  responses: () =>
    import('../openapi/billing-responses.js').then(({ TransactionListSchema }) => ({
      200: { description: 'A page of transactions.', schema: TransactionListSchema },
      400: 'A bad parameter (`invalid_parameter`, its `errors` entry naming it): out of range, not a date, an unknown type or status, `start_date` after `end_date`, `min_amount` above `max_amount`.',
    })),
});
