import * as z from 'zod';
import { withExample } from '#platform/http/common-schemas.js';
import { numberedPage } from '#platform/openapi/pagination.js';
import { TRANSACTION_STATUSES, TRANSACTION_TYPES } from '../model.js';

const TRANSACTION_EXAMPLE = {
  id: '4b7d9f1e-2a3c-4e5f-8a9b-0c1d2e3f4a5b',
  user_id: '0f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a',
  amount: 1_250_000,
  currency: 'USD',
  type: 'debit',
  status: 'completed',
  description: 'Extra usage of run run_0mwvm6w71Qx3LhT0pV9sKe2bA',
  metadata: { run_id: 'run_0mwvm6w71Qx3LhT0pV9sKe2bA' },
  processor_payment_intent_id: null,
  processor_charge_id: null,
  created_at: '2026-01-31T09:30:06.000Z',
  updated_at: '2026-01-31T09:30:06.000Z',
} as const;

export const BillingTransactionSchema = withExample(
  z
    .object({
      id: z.uuid(),
      user_id: z.uuid().meta({ description: 'The account.' }),
      amount: z.number().int().min(0).meta({ description: 'Microdollars; divide by 1 000 000 for USD.', example: 1_250_000 }),
      currency: z.literal('USD'),
      type: z.enum(TRANSACTION_TYPES).meta({ description: '`credit`: funds added; `debit`: usage taken from the wallet; `refund`: a debit given back.' }),
      status: z.enum(TRANSACTION_STATUSES).meta({
        description:
          '`completed`, or `failed` for a debit the wallet could not pay at all (its `amount` is what was asked, and the balance did not move). `pending` is not used yet.',
      }),
      description: z.string().nullable(),
      metadata: z.record(z.string(), z.unknown()).nullable().meta({
        description:
          'A debit names what it pays for (`workflow_request_id` or `run_id`); one the balance could not wholly cover adds `requested_micro_usd` and `shortfall_micro_usd`. A refund names its debit: `refunds_transaction_id`.',
      }),
      processor_payment_intent_id: z.string().nullable(),
      processor_charge_id: z.string().nullable(),
      created_at: z.string().datetime(),
      updated_at: z.string().datetime(),
    })
    .meta({ id: 'BillingTransaction' }),
  TRANSACTION_EXAMPLE,
);

export const PaginationSchema = z
  .object({
    page: z.number().int().min(1),
    limit: z.number().int().min(1).max(100),
    total_count: z.number().int().min(0).meta({ description: 'Every transaction the filters select.' }),
    total_pages: z.number().int().min(0).meta({ description: '`ceil(total_count / limit)`; 0 when nothing is selected.' }),
    has_next: z.boolean(),
    has_prev: z.boolean().meta({ description: '`page > 1`.' }),
  })
  .meta({ id: 'Pagination' });

export const TransactionListSchema = withExample(
  numberedPage(
    z.object({ transactions: z.array(BillingTransactionSchema).meta({ description: 'Newest first.' }), pagination: PaginationSchema }),
    'transactions',
    'BillingTransactionList',
  ),
  {
    transactions: [TRANSACTION_EXAMPLE],
    pagination: { page: 1, limit: 20, total_count: 1, total_pages: 1, has_next: false, has_prev: false },
  },
);

export const DailyActivityEntrySchema = withExample(
  z
    .object({
      date: z.string().meta({ format: 'date', description: 'A UTC day, `YYYY-MM-DD`.', example: '2026-01-31' }),
      total_cost: z.number().min(0).meta({ description: 'USD: the usage cost of the day (plan and extra funded).', example: 0.42 }),
      request_count: z.number().int().min(0).meta({ description: 'Workflow requests created that day.' }),
      node_count: z.number().int().min(0).meta({ description: 'Node executions settled that day: those of the workflow requests that ended that day.' }),
      run_count: z.number().int().min(0).meta({ description: 'Runs created that day.' }),
    })
    .meta({ id: 'DailyActivityEntry' }),
  { date: '2026-01-31', total_cost: 0.42, request_count: 12, node_count: 57, run_count: 3 },
);

export const DailyActivitySchema = withExample(
  z
    .object({
      data: z.array(DailyActivityEntrySchema).meta({ description: 'One per day, oldest first, ending today (UTC).' }),
      days: z.number().int().min(1).max(366),
    })
    .meta({ id: 'DailyActivity' }),
  {
    data: [
      { date: '2026-01-30', total_cost: 0, request_count: 0, node_count: 0, run_count: 0 },
      { date: '2026-01-31', total_cost: 0.42, request_count: 12, node_count: 57, run_count: 3 },
    ],
    days: 2,
  },
);
