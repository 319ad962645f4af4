import { randomBytes, randomUUID } from 'node:crypto';
import { startDynamoDbLocal } from '#local/emulators.js';
import { startLocalStack } from '#local/stack.js';
import { startCountingProxy } from './counting-proxy.js';

export interface RoundTripCase {
  label: string;
  request: string;
  /** The status every request must answer, or the case is reported as broken. */
  expectedStatus: number;
  /** Budget of DynamoDB calls per request (`exact` for the ones that must be zero). */
  budget: number;
  exact?: boolean;
}

export interface RoundTripResult extends RoundTripCase {
  requests: number;
  statuses: Record<string, number>;
  total: number;
  perRequest: number;
  minPerRequest: number;
  maxPerRequest: number;
  byTarget: Record<string, number>;
  pass: boolean;
}

/**
 * Starts DynamoDB Local behind a counting proxy and the local stack on a
 * free port with the proxy as its DynamoDB endpoint; creates an account,
 * signs in and mints a token through the HTTP API; then counts DynamoDB
 * calls per request for each case.
 */
export async function measureRoundTrips(requestsPerCase: number, log: (line: string) => void): Promise<RoundTripResult[]> {
  const cleanups: Array<() => Promise<unknown>> = [];
  try {
    process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    const dynamodb = await startDynamoDbLocal();
    cleanups.push(dynamodb.stop);
    const proxy = await startCountingProxy(dynamodb.endpoint);
    cleanups.push(proxy.close);
    const stack = await startLocalStack({ port: 0, dynamodbEndpoint: proxy.url, tableName: `bench-${Date.now()}` });
    cleanups.push(stack.stop);
    log(`local stack at ${stack.url}, DynamoDB Local ${dynamodb.endpoint} behind ${proxy.url}`);

    // Only now that the stack has set the environment: the data layer, with an explicit client on the proxy.
    const { readEnv } = await import('#platform/config/env.js');
    const { createDynamoDb } = await import('#platform/aws/clients.js');
    const { adminCommands } = await import('#accounts/admin-commands.js');
    const table = { db: createDynamoDb({ ...readEnv(), dynamodbEndpoint: proxy.url }), tableName: stack.tableName };

    const email = `bench-${randomUUID()}@example.com`;
    const password = randomBytes(18).toString('base64url');
    await adminCommands(table)['account:create']({ email, password, plan: 'pro', 'balance-usd': '10' });

    const login = await fetch(`${stack.url}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    const sessionCookie = login.headers
      .getSetCookie()
      .map((c) => c.split(';')[0]!)
      .find((c) => c.startsWith('session='));
    if (login.status !== 200 || !sessionCookie) throw new Error(`login answered ${login.status} without a session cookie: ${await login.text()}`);
    const minted = await fetch(`${stack.url}/v1/api-tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: sessionCookie },
      body: '{}',
    });
    const mintedBody = (await minted.json()) as { token?: string };
    if (minted.status !== 201 || !mintedBody.token) throw new Error(`minting answered ${minted.status}: ${JSON.stringify(mintedBody)}`);
    const token = mintedBody.token;
    // Same account part, different secret: well-formed, so the service must look it up to refuse it.
    const forged = token.slice(0, -8) + (token.endsWith('AAAAAAAA') ? 'BBBBBBBB' : 'AAAAAAAA');

    const bearer = { authorization: `Bearer ${token}` };
    const cases: Array<RoundTripCase & { send: () => Promise<Response> }> = [
      {
        label: 'List tokens, authenticated',
        request: 'GET /v1/api-tokens (Bearer)',
        expectedStatus: 200,
        budget: 2,
        send: () => fetch(`${stack.url}/v1/api-tokens`, { headers: bearer }),
      },
      {
        label: 'Revoke an unknown token id, authenticated',
        request: 'POST /v1/api-tokens/revoke (Bearer)',
        expectedStatus: 404,
        budget: 2,
        send: () =>
          fetch(`${stack.url}/v1/api-tokens/revoke`, {
            method: 'POST',
            headers: { ...bearer, 'content-type': 'application/json' },
            body: JSON.stringify({ token_id: `tok_${randomUUID()}` }),
          }),
      },
      {
        label: 'No credentials',
        request: 'GET /v1/api-tokens (no Authorization)',
        expectedStatus: 401,
        budget: 0,
        exact: true,
        send: () => fetch(`${stack.url}/v1/api-tokens`),
      },
      {
        label: 'Well-formed but unknown token',
        request: 'GET /v1/api-tokens (wrong secret)',
        expectedStatus: 401,
        budget: 1,
        send: () => fetch(`${stack.url}/v1/api-tokens`, { headers: { authorization: `Bearer ${forged}` } }),
      },
    ];

    const results: RoundTripResult[] = [];
    for (const c of cases) {
      // One unrecorded request loads the handler (and its module-scope client) first.
      await (await c.send()).arrayBuffer();
      await new Promise((r) => setTimeout(r, 50));
      proxy.reset();
      const statuses: Record<string, number> = {};
      const perRequest: number[] = [];
      for (let i = 0; i < requestsPerCase; i++) {
        const before = proxy.total;
        const answer = await c.send();
        await answer.arrayBuffer();
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        perRequest.push(proxy.total - before);
      }
      // Anything the handler left running after answering still lands in the total.
      await new Promise((r) => setTimeout(r, 200));
      const total = proxy.total;
      const average = total / requestsPerCase;
      const allExpected = statuses[c.expectedStatus] === requestsPerCase;
      results.push({
        label: c.label,
        request: c.request,
        expectedStatus: c.expectedStatus,
        budget: c.budget,
        exact: c.exact,
        requests: requestsPerCase,
        statuses,
        total,
        perRequest: average,
        minPerRequest: Math.min(...perRequest),
        maxPerRequest: Math.max(...perRequest),
        byTarget: proxy.byTarget(),
        pass: allExpected && (c.exact ? average === c.budget : average <= c.budget),
      });
    }
    return results;
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}
