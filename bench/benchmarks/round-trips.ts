import { randomUUID } from 'node:crypto';
import { budgetCount, counts, lineWriter, log, mark, passFail } from '../support/format.js';
import { Running, setRequestRate, signIn, startCountedStack, tableOn } from '../support/local-stack.js';
import { tally } from '../support/stats.js';
import { sleep } from '../support/wait.js';

/** Section 3: DynamoDB calls per request on the authenticated paths, counted at a proxy in front of DynamoDB Local. */

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

function cases(url: string, token: string): Array<RoundTripCase & { send: () => Promise<Response> }> {
  // Same account part, different secret: well-formed, so the service must look it up to refuse it.
  const forged = token.slice(0, -8) + (token.endsWith('AAAAAAAA') ? 'BBBBBBBB' : 'AAAAAAAA');
  const bearer = { authorization: `Bearer ${token}` };
  return [
    // Authenticated: the token and its account (BatchGetItem), the account's rate limit write (UpdateItem), the
    // handler's own call; a read makes the last two at once (2 round trips, bench/benchmarks/rate-limit.ts).
    {
      label: 'List tokens, authenticated',
      request: 'GET /v1/api-tokens (Bearer)',
      expectedStatus: 200,
      budget: 3,
      send: () => fetch(`${url}/v1/api-tokens`, { headers: bearer }),
    },
    {
      label: 'Revoke an unknown token id, authenticated',
      request: 'POST /v1/api-tokens/revoke (Bearer)',
      expectedStatus: 404,
      budget: 3,
      send: () =>
        fetch(`${url}/v1/api-tokens/revoke`, {
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
      send: () => fetch(`${url}/v1/api-tokens`),
    },
    {
      label: 'Well-formed but unknown token',
      request: 'GET /v1/api-tokens (wrong secret)',
      expectedStatus: 401,
      budget: 1,
      send: () => fetch(`${url}/v1/api-tokens`, { headers: { authorization: `Bearer ${forged}` } }),
    },
  ];
}

/**
 * Starts DynamoDB Local behind a counting proxy and the local stack with
 * the proxy as its DynamoDB endpoint, signs in through the HTTP API, then
 * counts DynamoDB calls per request for each case.
 */
export async function measureRoundTrips(requestsPerCase: number): Promise<RoundTripResult[]> {
  log(`counting DynamoDB round trips (${requestsPerCase} requests per case)`);
  const running = new Running();
  try {
    const { stack, dynamodb, ddb: proxy } = await startCountedStack(running, { tableName: `bench-${Date.now()}` });
    log(`local stack at ${stack.url}, DynamoDB Local ${dynamodb.endpoint} behind ${proxy.url}`);
    const table = await tableOn(proxy.url, stack.tableName);
    const { token, accountId } = await signIn(stack.url, table);
    // The cases send their requests back to back, past a pro account's 20 per second: counted here are calls, not the rate.
    await setRequestRate(table, accountId, 100);

    const results: RoundTripResult[] = [];
    for (const c of cases(stack.url, token)) {
      // One unrecorded request loads the handler (and its module-scope client) first.
      await (await c.send()).arrayBuffer();
      await sleep(50);
      proxy.reset();
      const statuses: Record<string, number> = {};
      const perRequest: number[] = [];
      for (let i = 0; i < requestsPerCase; i++) {
        const before = proxy.total;
        const answer = await c.send();
        await answer.arrayBuffer();
        tally(statuses, String(answer.status));
        perRequest.push(proxy.total - before);
      }
      // Anything the handler left running after answering still lands in the total.
      await sleep(200);
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
    await running.stopAll();
  }
}

const failing = (trips: RoundTripResult[]) => trips.filter((t) => !t.pass);

export function roundTripSummary(trips: RoundTripResult[]): string {
  const over = failing(trips);
  return `DynamoDB round trips per request: ${over.length ? `**${over.length} of ${trips.length} cases FAIL** (${over.map((t) => t.request).join('; ')})` : `all ${trips.length} cases pass`}.`;
}

export function renderRoundTripSection(trips: RoundTripResult[], requestsPerCase: number): string[] {
  const { lines, out } = lineWriter();
  out('## 3. DynamoDB round trips per request');
  out();
  out('| Case | Request | Status | DynamoDB calls per request | Min / max | Breakdown (X-Amz-Target, all requests) | Budget |');
  out('|---|---|---|---:|---|---|---|');
  for (const t of trips) {
    const breakdown =
      Object.entries(t.byTarget)
        .map(([op, n]) => `${op} ${n} (${(n / t.requests).toFixed(2)}/req)`)
        .join(', ') || 'none';
    out(
      `| ${t.label} | \`${t.request}\` | ${counts(t.statuses)} | ${t.perRequest.toFixed(2)} | ${t.minPerRequest} / ${t.maxPerRequest} | ${breakdown} | ${t.exact ? '=' : '≤'} ${t.budget}: ${mark(t.pass)} |`,
    );
  }
  out();
  out(
    `**How measured.** DynamoDB Local is started with \`startDynamoDbLocal\` (lib/local/emulators.ts) and put behind a counting HTTP proxy (bench/support/dynamo-proxy.ts) on 127.0.0.1 that forwards every request unchanged and records its \`X-Amz-Target\` header, so each DynamoDB API call, SDK retries included, counts once. The local stack (\`startLocalStack\`, lib/local/stack.ts, on a free port) gets the proxy as its DynamoDB endpoint, so the real handler code runs through the local API gateway. An account is created with the operator command \`account:create\` (pro plan, 10 USD), a session is opened with \`POST /v1/auth/login\` and a token minted with \`POST /v1/api-tokens\` and that session cookie; its request rate is raised to 100 per second (\`account:set-limits --rps 100\`), since the cases send their requests back to back. An authenticated request makes three calls: the token with its account, the account's rate limit write, and the handler's own; a read makes the last two at the same time (two round trips on its critical path; see the rate limit section, \`npm run bench -- rate\`). For each case, one unrecorded request loads the handler, the counter is reset, ${requestsPerCase} requests are sent one after another, and the total (read 200 ms after the last answer, so work a handler leaves running after answering is caught) is divided by ${requestsPerCase}. "Min / max" are per-request counts. A case also fails if any answer has another status than the one shown as expected (${trips.map((t) => `${t.expectedStatus} for ${t.request}`).join('; ')}).`,
  );
  out();
  return lines;
}

export function roundTripConsoleLines(trips: RoundTripResult[]): string[] {
  return [
    '\nDynamoDB calls per request:',
    ...trips.map((t) => `  ${t.request.padEnd(40)} ${t.perRequest.toFixed(2)}  ${JSON.stringify(t.byTarget)}  ${passFail(t.pass)}`),
  ];
}

export const roundTripBudget = (trips: RoundTripResult[]): string => `  round trips   ${budgetCount(failing(trips).length, trips.length)}`;
