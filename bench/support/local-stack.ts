import { type RunningService, startDynamoDbLocal, startSqsEmulator } from '#local/emulators.js';
import { type LocalStack, startLocalStack } from '#local/stack.js';
import type { TableRef } from '#platform/table/table.js';
import { createAccount, login, mintToken } from '../../test/helpers/stack.js';
import { type DynamoCountingProxy, startDynamoCountingProxy } from './dynamo-proxy.js';
import { type SqsCountingProxy, startSqsCountingProxy } from './sqs-proxy.js';

/**
 * The local stack (lib/local/stack.ts) with counting proxies in front of
 * its emulators, so the real handlers run through the local gateway and
 * every call they make is seen.
 */

/** What is running (emulators, proxies, stack, clients), stopped in reverse order at the end or on a signal. */
export class Running {
  private readonly stops: Array<() => Promise<unknown>> = [];
  add(...stops: Array<() => Promise<unknown>>): void {
    this.stops.push(...stops);
  }
  async stopAll(): Promise<void> {
    while (this.stops.length > 0) await this.stops.pop()!().catch(() => undefined);
  }
}

export interface CountedStack {
  stack: LocalStack;
  dynamodb: RunningService;
  ddb: DynamoCountingProxy;
  /** Only when SQS is proxied too; otherwise the stack runs its own emulator. */
  sqsEmulator?: RunningService;
  sqs?: SqsCountingProxy;
}

export interface CountedStackOptions {
  tableName: string;
  queuePrefix?: string;
  proxySqs?: boolean;
  consumedCapacity?: boolean;
  onWorkerError?: (error: unknown) => void;
}

export async function startCountedStack(running: Running, options: CountedStackOptions): Promise<CountedStack> {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const [dynamodb, sqsEmulator] = await Promise.all([startDynamoDbLocal(), options.proxySqs ? startSqsEmulator() : undefined]);
  running.add(dynamodb.stop, ...(sqsEmulator ? [sqsEmulator.stop] : []));
  const ddb = await startDynamoCountingProxy(dynamodb.endpoint, { consumedCapacity: options.consumedCapacity });
  running.add(ddb.close);
  const sqs = sqsEmulator ? await startSqsCountingProxy(sqsEmulator.endpoint) : undefined;
  if (sqs) running.add(sqs.close);
  const stack = await startLocalStack({
    port: 0,
    dynamodbEndpoint: ddb.url,
    ...(sqs ? { sqsEndpoint: sqs.url } : {}),
    tableName: options.tableName,
    ...(options.queuePrefix ? { queuePrefix: options.queuePrefix } : {}),
    ...(options.onWorkerError ? { onWorkerError: options.onWorkerError } : {}),
  });
  running.add(stack.stop);
  return { stack, dynamodb, ddb, ...(sqsEmulator && sqs ? { sqsEmulator, sqs } : {}) };
}

/** The stack's table through `endpoint`: DynamoDB Local itself (uncounted) or a proxy. Imported only once the stack has set the environment. */
export async function tableOn(endpoint: string, tableName: string): Promise<TableRef> {
  const { readEnv } = await import('#platform/config/env.js');
  const { createDynamoDb } = await import('#platform/aws/clients.js');
  return { db: createDynamoDb({ ...readEnv(), dynamodbEndpoint: endpoint }), tableName };
}

/**
 * Sets the account's request rate with the operator command
 * `account:set-limits --rps` (undefined: `--reset`, the plan's again): for a
 * benchmark that is itself a load on one account (requests back to back, a
 * hundred streams at once) and measures something else. The rest keep the
 * pro plan's rate, so what the limiter costs a request is what a pro
 * account pays.
 */
export async function setRequestRate(table: TableRef, accountId: string, rps: number | undefined): Promise<void> {
  const { adminCommands } = await import('#accounts/admin-commands.js');
  await adminCommands(table)['account:set-limits']({ 'account-id': accountId, ...(rps === undefined ? { reset: true } : { rps: String(rps) }) });
}

/**
 * A pro account with 10 USD created with the operator command
 * `account:create`, a session from `POST /v1/auth/login`, and a token
 * minted with it through `POST /v1/api-tokens`.
 */
export async function signIn(url: string, table: TableRef, tokenRequest: Record<string, unknown> = {}): Promise<{ accountId: string; token: string }> {
  const account = await createAccount(table, { plan: 'pro', balanceUsd: 10 });
  const cookie = await login(url, account);
  const { token } = await mintToken(url, cookie, tokenRequest);
  return { accountId: account.accountId, token };
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies are JSON the bench reads field by field
export type Api = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<{ status: number; body: any }>;

/** JSON over HTTP with a bearer token (and any further headers, e.g. an Idempotency-Key). */
export const apiClient =
  (url: string, token: string): Api =>
  async (method, path, body, headers = {}) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
