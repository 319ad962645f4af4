import * as z from 'zod';
import { MICRO_USD_PER_USD, PLAN_NAMES } from '#platform/config/plans.js';
import { hashPassword, newId } from '#platform/crypto.js';
import { NotFoundError } from '#platform/errors.js';
import type { TableRef } from '#platform/table/table.js';
import { isUuid } from '#platform/uuid.js';
import { type Account, accountsRepo } from './accounts-repository.js';
import { transactionsRepo } from './transactions-repository.js';

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
  created_at: account.created_at,
  updated_at: account.updated_at,
});

export function adminCommands(table: TableRef) {
  const accounts = accountsRepo(table);
  const transactions = transactionsRepo(table);
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
      if (balance > 0) await transactions.credit({ id: newId(), accountId: account.id, amountMicroUsd: balance, description: 'Opening balance' });
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
      const transaction = await transactions.credit({
        id: newId(),
        accountId: args['account-id'],
        amountMicroUsd: toMicro(args.usd),
        description: args.description ?? 'Operator credit',
      });
      const account = await mustGet(args['account-id']);
      return { transaction, balance_micro_usd: account.balance_micro_usd };
    },
    async 'account:show'(raw: Record<string, unknown>) {
      return shown(await mustGet(parse(AccountIdArgs, raw)['account-id']));
    },
  };
}

export type AdminCommandName = keyof ReturnType<typeof adminCommands>;
