import { adminCommands } from '../admin/commands.js';
import { serviceEnv } from '../config/env.js';
import { accountsRepo } from '../data/accounts.js';
import { defaultTable } from '../data/table.js';
import { tokensRepo } from '../data/tokens.js';
import { mintToken } from '../domain/api-tokens.js';
import { randomSecret } from '../domain/crypto.js';
import { newTokenId } from '../domain/ids.js';

const DEMO_EMAIL = 'demo@example.com';

/**
 * On a first start against an empty table, creates a demo account (pro plan,
 * 10 USD so it may mint) and a 24-hour token, through the same code paths
 * the operator CLI and the token endpoint use.
 */
export async function ensureDemoAccount() {
  const table = defaultTable();
  const accounts = accountsRepo(table);
  if (await accounts.anyExists()) return undefined;
  const password = randomSecret(12);
  const created = await adminCommands(table)['account:create']({ email: DEMO_EMAIL, password, plan: 'pro', 'balance-usd': '10' });
  const account = (await accounts.get(created.account_id))!;
  const minted = await mintToken({ tokens: tokensRepo(table), newTokenId }, account, { name: 'Demo token', duration_minutes: 24 * 60 }, serviceEnv.baseUrl);
  return { email: DEMO_EMAIL, password, token: minted.token, expiresAt: minted.expires_at };
}
