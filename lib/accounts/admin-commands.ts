import * as z from 'zod';
import { billing } from '#billing/index.js';
import { type LimitOverrides, limitsInForce, MICRO_USD_PER_USD, PLAN_NAMES } from '#platform/config/plans.js';
import { hashPassword, newId } from '#platform/crypto.js';
import { NotFoundError } from '#platform/errors.js';
import type { TableRef } from '#platform/table/table.js';
import { isUuid } from '#platform/uuid.js';
import { accountsRepo } from './accounts-repository.js';
import { type Account, LIMIT_OVERRIDES } from './model.js';

/** Operator commands (decisions.md, Accounts). Each returns the JSON object the CLI prints. */
export class UsageError extends Error {}

const usd = z.coerce.number().finite().nonnegative().max(1_000_000_000);
const toMicro = (amount: number): number => Math.round(amount * MICRO_USD_PER_USD);

const CreateArgs = z.object({
  email: z.string().trim().toLowerCase().email({ error: '--email must be an email address' }),
  password: z.string().min(8, { error: '--password must be at least 8 characters' }).max(1024),
  plan: z.enum(PLAN_NAMES, { error: `--plan must be one of ${PLAN_NAMES.join(', ')}` }).default('pro'),
  'balance-usd': usd.default(0),
  'extra-usage': z.boolean().default(false),
});
const AccountIdArgs = z.object({ 'account-id': z.string().refine(isUuid, { error: '--account-id must be an account id (a UUID)' }) });
const CreditArgs = AccountIdArgs.extend({
  usd: usd.refine((n) => n > 0, { error: '--usd must be a positive amount' }),
  description: z.string().max(500).optional(),
});
const RefundArgs = z.object({
  'transaction-id': z.string().refine(isUuid, { error: '--transaction-id must be a transaction id (a UUID)' }),
  usd: usd.refine((n) => toMicro(n) > 0, { error: '--usd must be a positive amount (at least 0.000001)' }).optional(),
  description: z.string().max(500).optional(),
});

/** Highest `--rps`: the rate log holds 2 × rps times, and its write grows with it (docs/data-model.md, Rate limits). */
export const MAX_RPS = 1000;
export const MAX_CONCURRENCY = 10_000;

/**
 * A USD amount as decimal text, to microdollars exactly: digits with at most
 * six decimals, no floating point on the way (0.1 USD is 100 000, never 99 999).
 */
const exactUsd = (flag: string) =>
  z.coerce
    .string()
    .regex(/^\d{1,9}(\.\d{1,6})?$/, { error: `--${flag} must be an amount in USD with at most 6 decimals, below 1 000 000 000 (e.g. 12.5)` })
    .transform((text) => {
      const [whole, fraction = ''] = text.split('.');
      return Number(whole) * MICRO_USD_PER_USD + Number(fraction.padEnd(6, '0'));
    });
const wholeNumber = (flag: string, max: number) =>
  z.coerce
    .string()
    .regex(/^\d{1,9}$/, { error: `--${flag} must be a whole number from 1 to ${max}` })
    .transform(Number)
    .refine((n) => n >= 1 && n <= max, { error: `--${flag} must be a whole number from 1 to ${max}` });

const SetLimitsArgs = AccountIdArgs.extend({
  'five-hour-usd': exactUsd('five-hour-usd').optional(),
  'week-usd': exactUsd('week-usd').optional(),
  rps: wholeNumber('rps', MAX_RPS).optional(),
  concurrency: wholeNumber('concurrency', MAX_CONCURRENCY).optional(),
  reset: z.boolean().default(false),
}).superRefine((args, context) => {
  const given = ['five-hour-usd', 'week-usd', 'rps', 'concurrency'].filter((flag) => args[flag as keyof typeof args] !== undefined);
  if (args.reset && given.length > 0) {
    context.addIssue({
      code: 'custom',
      message: `--reset returns every limit to the plan's; it cannot be combined with ${given.map((f) => `--${f}`).join(', ')}`,
    });
  }
  if (!args.reset && given.length === 0) {
    context.addIssue({ code: 'custom', message: 'give at least one of --five-hour-usd, --week-usd, --rps, --concurrency, or --reset' });
  }
});
const ExtraUsageArgs = AccountIdArgs.extend({ on: z.boolean().default(false), off: z.boolean().default(false) }).refine((args) => args.on !== args.off, {
  error: 'give exactly one of --on and --off',
});

function parse<T>(schema: z.ZodType<T>, args: Record<string, unknown>): T {
  const result = schema.safeParse(args);
  if (result.success) return result.data;
  throw new UsageError(
    result.error.issues.map((i) => (i.code === 'invalid_type' && i.path.length ? `--${String(i.path[0])} is required` : i.message)).join('; '),
  );
}

const shown = (account: Account) => ({
  account_id: account.id,
  email: account.email,
  plan: account.plan,
  balance_micro_usd: account.balance_micro_usd,
  suspended: account.suspended,
  extra_usage: account.extra_usage,
  limits: limitsShown(account),
  overrides: Object.fromEntries(LIMIT_OVERRIDES.filter((name) => account[name] !== undefined).map((name) => [name, account[name]])) as LimitOverrides,
  created_at: account.created_at,
  updated_at: account.updated_at,
});

/** The values in force (the overrides where set, the plan's elsewhere), as account:show prints them. */
function limitsShown(account: Account) {
  const limits = limitsInForce(account);
  return {
    five_hour_allowance_micro_usd: limits.fiveHourAllowanceMicroUsd,
    week_allowance_micro_usd: limits.weeklyAllowanceMicroUsd,
    requests_per_second: limits.requestsPerSecond,
    burst: limits.burst,
    concurrency: limits.concurrency,
  };
}

export function adminCommands(table: TableRef) {
  const accounts = accountsRepo(table);
  const wallet = billing(table);
  const mustGet = async (id: string) => {
    const account = await accounts.get(id);
    if (!account) throw new NotFoundError(`No account ${id}.`);
    return account;
  };

  return {
    async 'account:create'(raw: Record<string, unknown>) {
      const args = parse(CreateArgs, raw);
      const account = await accounts.create({
        id: newId(),
        email: args.email,
        passwordHash: await hashPassword(args.password),
        plan: args.plan,
        balanceMicroUsd: 0,
        extraUsage: args['extra-usage'],
      });
      // An opening balance is a credit like any other, so the ledger explains it.
      const balance = toMicro(args['balance-usd']);
      if (balance > 0) await wallet.credit({ id: newId(), accountId: account.id, amountMicroUsd: balance, description: 'Opening balance' });
      return { account_id: account.id, email: account.email, plan: account.plan, balance_micro_usd: balance };
    },
    async 'account:suspend'(raw: Record<string, unknown>) {
      return shown(await accounts.setSuspended(parse(AccountIdArgs, raw)['account-id'], true));
    },
    async 'account:unsuspend'(raw: Record<string, unknown>) {
      return shown(await accounts.setSuspended(parse(AccountIdArgs, raw)['account-id'], false));
    },
    async 'account:credit'(raw: Record<string, unknown>) {
      const args = parse(CreditArgs, raw);
      const transaction = await wallet.credit({
        id: newId(),
        accountId: args['account-id'],
        amountMicroUsd: toMicro(args.usd),
        description: args.description ?? 'Operator credit',
      });
      const account = await mustGet(args['account-id']);
      return { transaction, balance_micro_usd: account.balance_micro_usd };
    },
    /**
     * Gives back (part of) a completed debit: a completed `refund` naming it in
     * `metadata.refunds_transaction_id`, the balance raised by it. Without
     * `--usd`, all the debit has left to refund; never more in total than it took.
     */
    async 'account:refund'(raw: Record<string, unknown>) {
      const args = parse(RefundArgs, raw);
      const transaction = await wallet.refund({
        id: newId(),
        debitId: args['transaction-id'].toLowerCase(),
        ...(args.usd === undefined ? {} : { amountMicroUsd: toMicro(args.usd) }),
        ...(args.description === undefined ? {} : { description: args.description }),
      });
      const account = await mustGet(transaction.user_id);
      return { transaction, balance_micro_usd: account.balance_micro_usd };
    },
    /**
     * Replaces the plan's values for this account (decisions.md, Operator
     * overrides): allowances in USD, stored in microdollars; `--reset`
     * removes every override. Read with the account by every request, so in
     * force on its next call.
     */
    async 'account:set-limits'(raw: Record<string, unknown>) {
      const args = parse(SetLimitsArgs, raw);
      const change: LimitOverrides | 'reset' = args.reset
        ? 'reset'
        : {
            ...(args['five-hour-usd'] === undefined ? {} : { five_hour_allowance: args['five-hour-usd'] }),
            ...(args['week-usd'] === undefined ? {} : { week_allowance: args['week-usd'] }),
            ...(args.rps === undefined ? {} : { rps: args.rps }),
            ...(args.concurrency === undefined ? {} : { concurrency: args.concurrency }),
          };
      return shown(await accounts.setLimits(args['account-id'], change));
    },
    /** Switches extra usage: with it on, the wallet pays past a full window (decisions.md, Money). */
    async 'account:extra-usage'(raw: Record<string, unknown>) {
      const args = parse(ExtraUsageArgs, raw);
      return shown(await accounts.setExtraUsage(args['account-id'], args.on));
    },
    async 'account:show'(raw: Record<string, unknown>) {
      return shown(await mustGet(parse(AccountIdArgs, raw)['account-id']));
    },
  };
}

export type AdminCommandName = keyof ReturnType<typeof adminCommands>;
