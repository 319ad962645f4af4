import { randomUUID } from 'node:crypto';
import { adminCommands } from '#accounts/admin-commands.js';
import { type LocalStack, type LocalStackOptions, startLocalStack } from '#local/stack.js';
import { createDynamoDb } from '#platform/aws/clients.js';
import { readEnv } from '#platform/config/env.js';
import type { TableRef } from '#platform/table/table.js';

/**
 * One gateway per test file, on the run's shared DynamoDB Local and SQS
 * emulator (test/integration/global-setup.ts, handed over in
 * DYNAMODB_ENDPOINT / SQS_ENDPOINT / TABLE_NAME); without them it starts its own.
 */
export async function startTestStack(options: LocalStackOptions = {}): Promise<LocalStack & { table: TableRef }> {
  const stack = await startLocalStack({
    port: 0,
    dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT || undefined,
    sqsEndpoint: process.env.SQS_ENDPOINT || undefined,
    tableName: process.env.TABLE_NAME ?? `test-${Date.now()}`,
    queuePrefix: `t${randomUUID().slice(0, 8)}-`,
    ...options,
  });
  const env = readEnv({ ...process.env, DYNAMODB_ENDPOINT: stack.dynamodbEndpoint, TABLE_NAME: stack.tableName });
  const table = { db: createDynamoDb(env), tableName: stack.tableName };
  return { ...stack, table };
}

export interface TestAccount {
  accountId: string;
  email: string;
  password: string;
}

export async function createAccount(table: TableRef, options: { plan?: 'free' | 'pro' | 'team'; balanceUsd?: number } = {}): Promise<TestAccount> {
  const email = `user-${randomUUID()}@example.com`;
  const password = `pw-${randomUUID()}`;
  const created = await adminCommands(table)['account:create']({
    email,
    password,
    plan: options.plan ?? 'pro',
    'balance-usd': String(options.balanceUsd ?? 10),
  });
  return { accountId: created.account_id, email, password };
}

export async function login(baseUrl: string, account: Pick<TestAccount, 'email' | 'password'>): Promise<string> {
  const response = await fetch(`${baseUrl}/v1/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: account.email, password: account.password }),
  });
  if (response.status !== 200) throw new Error(`login failed: ${response.status} ${await response.text()}`);
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith('session='));
  if (!cookie) throw new Error('login set no session cookie');
  return cookie.split(';')[0]!;
}

export async function mintToken(baseUrl: string, cookie: string, body: Record<string, unknown> = {}): Promise<{ id: string; token: string }> {
  const response = await fetch(`${baseUrl}/v1/api-tokens`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Cookie: cookie },
    body: JSON.stringify(body),
  });
  if (response.status !== 201) throw new Error(`mint failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as { id: string; token: string };
}

/**
 * The request rate a signed-up test account gets (`account:set-limits --rps`).
 * A test file sends its requests back to back, as fast as the machine serves
 * them, often on one account for the whole file: on a fast machine far past a
 * pro account's 20 per second, though no test but rate-limits.test.ts is
 * about the rate. Set as an operator would, so every request still goes
 * through the limiter; `rps: 'plan'` keeps the plan's rate.
 */
export const TEST_ACCOUNT_RPS = 200;

/** A fresh pro account with a session cookie and a bearer token. */
export async function signedUpUser(stack: { url: string; table: TableRef }, options: Parameters<typeof createAccount>[1] & { rps?: number | 'plan' } = {}) {
  const account = await createAccount(stack.table, options);
  if (options.rps !== 'plan') {
    await adminCommands(stack.table)['account:set-limits']({ 'account-id': account.accountId, rps: String(options.rps ?? TEST_ACCOUNT_RPS) });
  }
  const cookie = await login(stack.url, account);
  const { token, id } = await mintToken(stack.url, cookie);
  return { ...account, cookie, token, tokenId: id };
}

export const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });
