import type { EndpointContract } from '#platform/http/contract.js';
import { ActivityDaily } from './activity-daily.js';
import { BillingTransactionsList } from './billing-transactions-list.js';

export const BILLING_ENDPOINTS: readonly EndpointContract[] = [BillingTransactionsList, ActivityDaily];
