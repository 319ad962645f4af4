import { accountsRepo } from '#accounts/accounts-repository.js';
import { adminCommands } from '#accounts/admin-commands.js';
import { mintToken } from '#accounts/api-tokens.js';
import { tokensRepo } from '#accounts/tokens-repository.js';
import { serviceEnv } from '#platform/config/env.js';
import { randomSecret } from '#platform/crypto.js';
import { newTokenId } from '#platform/ids.js';
import { defaultTable } from '#platform/table/table.js';

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

/** What `npm start` prints of a demo account it created. */
export function printDemoAccount(demo: Awaited<ReturnType<typeof ensureDemoAccount>>, url: string): void {
  if (!demo) return;
  console.log('\nCreated a demo account (the table was empty):');
  console.log(`  email:    ${demo.email}`);
  console.log(`  password: ${demo.password}`);
  console.log(`  token:    ${demo.token}  (valid until ${demo.expiresAt})`);
  console.log(`\nTry:\n  curl -s ${url}/v1/api-tokens -H "Authorization: Bearer ${demo.token}"\n`);
}
