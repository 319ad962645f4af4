import { defineTag } from '#platform/http/contract.js';

/** This feature's OpenAPI tags: their descriptions open each group of operations in the document. */
export const BILLING_TAG = defineTag(
  'Billing',
  'The wallet’s ledger: credits (top-ups), debits (extra-funded usage, one per finished workflow request or run) and refunds. Amounts are integer microdollars; divide by 1 000 000 for USD.',
);
export const ACTIVITY_TAG = defineTag('Activity', 'Usage per UTC day: cost, workflow requests, node executions and runs.');
