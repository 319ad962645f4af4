import * as z from 'zod';
import { TRANSACTION_STATUSES, TRANSACTION_TYPES } from '../model.js';

export const BillingTransactionSchema = z
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
  .meta({ id: 'BillingTransaction' });

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

export const TransactionListSchema = z
  .object({
    transactions: z.array(BillingTransactionSchema).meta({ description: 'Newest first.' }),
    pagination: PaginationSchema,
  })
  .meta({ id: 'BillingTransactionList' });

export const DailyActivityEntrySchema = z
  .object({
    date: z.string().meta({ format: 'date', description: 'A UTC day, `YYYY-MM-DD`.', example: '2026-01-31' }),
    total_cost: z.number().min(0).meta({ description: 'USD: the usage cost of the day (plan and extra funded).', example: 0.42 }),
    request_count: z.number().int().min(0).meta({ description: 'Workflow requests created that day.' }),
    node_count: z.number().int().min(0).meta({ description: 'Node executions settled that day: those of the workflow requests that ended that day.' }),
    run_count: z.number().int().min(0).meta({ description: 'Runs created that day.' }),
  })
  .meta({ id: 'DailyActivityEntry' });

export const DailyActivitySchema = z
  .object({
    data: z.array(DailyActivityEntrySchema).meta({ description: 'One per day, oldest first, ending today (UTC).' }),
    days: z.number().int().min(1).max(366),
  })
  .meta({ id: 'DailyActivity' });
