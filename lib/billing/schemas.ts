import * as z from 'zod';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from '#platform/config/limits.js';
import { limitParam } from '#platform/http/common-schemas.js';
import { isDay, TRANSACTION_STATUSES, TRANSACTION_TYPES } from './model.js';

// Query parameters arrive as strings and stay strings here (the document
// states the type they stand for): lib/billing/transactions.ts, filtersOf,
// turns the checked strings into filters. Every fault is 400
// invalid_parameter naming the parameter (lib/platform/http/parse.ts).

export const PAGE_MAX = 1_000_000;
export const ACTIVITY_DAYS = { min: 1, max: 366, default: 30 } as const;

const integer = (min: number, max: number, fallback: number) => {
  const error = `must be an integer from ${min} to ${max}`;
  return z.coerce.number({ error }).int({ error }).min(min, { error }).max(max, { error }).default(fallback);
};

const subsetOf = (values: readonly string[]) =>
  z
    .string()
    .refine((value) => value.split(',').every((part) => values.includes(part.trim())), { error: `must be a comma-separated list of ${values.join(', ')}` })
    .optional();

const day = (description: string) =>
  z.string().refine(isDay, { error: 'must be a date written YYYY-MM-DD' }).optional().meta({ format: 'date', description, example: '2026-01-31' });

const USD = /^(\d+(\.\d*)?|\.\d+)$/;
const usd = (description: string) =>
  z
    .string()
    .refine((value) => USD.test(value) && Number(value) <= 1_000_000_000, { error: 'must be an amount in USD from 0 to 1000000000, such as 2.5' })
    .optional()
    .meta({ type: 'number', minimum: 0, maximum: 1_000_000_000, description, example: 2.5 });

// A control character could make a match span two values of the text searched (model.ts, searchTextOf).
const isControl = (value: string) => [...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

export const ListTransactionsQuery = z
  .object({
    page: integer(1, PAGE_MAX, 1).meta({ description: '1-based. A page past the last answers an empty `transactions`.' }),
    limit: limitParam(LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT),
    types: subsetOf(TRANSACTION_TYPES).meta({
      description: `Only these types: a comma-separated subset of ${TRANSACTION_TYPES.join(', ')}.`,
      example: 'debit,refund',
    }),
    statuses: subsetOf(TRANSACTION_STATUSES).meta({
      description: `Only these statuses: a comma-separated subset of ${TRANSACTION_STATUSES.join(', ')}.`,
      example: 'completed',
    }),
    start_date: day('Only transactions created on this UTC day or later.'),
    end_date: day('Only transactions created on this UTC day or earlier (inclusive).'),
    min_amount: usd('Only transactions whose `amount` in USD (`amount` / 1 000 000) is at least this (inclusive).'),
    max_amount: usd('Only transactions whose `amount` in USD is at most this (inclusive).'),
    search: z
      .string()
      .max(200, { error: 'must be at most 200 characters' })
      .refine((value) => !isControl(value), { error: 'must not contain control characters' })
      .optional()
      .meta({ description: 'Only transactions whose description, or a value of whose metadata, contains this, ignoring case. Empty means no filter.' }),
  })
  .superRefine((query, ctx) => {
    if (query.start_date && query.end_date && query.start_date > query.end_date) {
      ctx.addIssue({ code: 'custom', path: ['start_date'], message: 'must not be after end_date' });
    }
    if (query.min_amount !== undefined && query.max_amount !== undefined && Number(query.min_amount) > Number(query.max_amount)) {
      ctx.addIssue({ code: 'custom', path: ['min_amount'], message: 'must not be more than max_amount' });
    }
  });

export const DailyActivityQuery = z.object({
  days: integer(ACTIVITY_DAYS.min, ACTIVITY_DAYS.max, ACTIVITY_DAYS.default).meta({
    description: `How many UTC days, ending today: ${ACTIVITY_DAYS.min} to ${ACTIVITY_DAYS.max}.`,
  }),
});
