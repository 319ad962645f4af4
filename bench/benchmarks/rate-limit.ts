import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { accountsRepo } from '#accounts/accounts-repository.js';
import { adminCommands } from '#accounts/admin-commands.js';
import { mintToken } from '#accounts/api-tokens.js';
import { requestRateLimiter } from '#accounts/rate-limiter.js';
import { tokensRepo } from '#accounts/tokens-repository.js';
import { startDynamoDbLocal } from '#local/emulators.js';
import { lambdaContext } from '#local/lambda-runtime.js';
import { ensureTable } from '#local/provision.js';
import { createDynamoDb } from '#platform/aws/clients.js';
import { readEnv } from '#platform/config/env.js';
import { limitsInForce, RATE_WINDOW_MS } from '#platform/config/plans.js';
import type { ApiContext } from '#platform/http/types.js';
import { newTokenId } from '#platform/ids.js';
import { keys } from '#platform/table/keys.js';
import type { TableRef } from '#platform/table/table.js';
import { lineWriter, log, mark, ms, num, passFail, times } from '../support/format.js';
import { itemSize, type WireItem } from '../support/item-size.js';
import { Running } from '../support/local-stack.js';
import { median, percentile } from '../support/stats.js';
import { sleep } from '../support/wait.js';

/**
 * What the request rate limit (lib/accounts/rate-limiter.ts) adds to an
 * authenticated read: `GET /v1/api-tokens` with a bearer token, its real
 * handler (functions/api-tokens/list.ts) invoked in this process against
 * DynamoDB Local, once with the limiter and once with one that admits
 * everything without a write, interleaved. Every DynamoDB call is timed at
 * the client (an SDK middleware), so the round trips on the critical path
 * are counted exactly: calls that overlap in time are one round trip. Run
 * as is, and with a fixed delay added to every call (the network of a
 * deployed Lambda to DynamoDB, which DynamoDB Local on loopback lacks).
 */

export interface RateLimitVariant {
  label: string;
  /** Milliseconds added before every DynamoDB call. */
  delayMs: number;
  withLimiter: VariantSide;
  without: VariantSide;
  /** Median with over median without. */
  ratio: number;
  addedMs: number;
  /** The claim: at most 2 round trips on the critical path with the limiter. */
  pass: boolean;
}

export interface RateLimitResult {
  requests: number;
  variants: RateLimitVariant[];
  /** The rate log item of a pro account (burst 40), as DynamoDB sizes it, and the write units its UpdateItem costs. */
  logItemBytes: number;
  logWriteUnits: number;
  /** Concurrent invocations on a fresh pro account, and how many the limiter let through within one window. */
  concurrent: { sent: number; admitted: number; refused: number; elapsedMs: number; burst: number; pass: boolean };
}

interface VariantSide {
  medianMs: number;
  p90Ms: number;
  callsPerRequest: number;
  /** The distinct numbers of round trips on the critical path seen. */
  roundTrips: number[];
  /** Median duration of each DynamoDB operation, ms. */
  opMs: Record<string, number>;
}

interface TimedCall {
  op: string;
  start: number;
  end: number;
}

/** The calls of one request, merged where they overlap in time: how many round trips it waited for one after another. */
export function roundTripsOf(calls: readonly TimedCall[]): number {
  const sorted = [...calls].sort((a, b) => a.start - b.start);
  let trips = 0;
  let reach = Number.NEGATIVE_INFINITY;
  for (const call of sorted) {
    if (call.start >= reach) trips++;
    reach = Math.max(reach, call.end);
  }
  return trips;
}

/** A table whose client times every call, after waiting `delay()` ms (the emulated network). */
function timedTable(endpoint: string, tableName: string, delay: () => number): { table: TableRef; calls: TimedCall[] } {
  const db = createDynamoDb({ ...readEnv({ AWS_REGION: 'us-east-1', TABLE_NAME: tableName }), dynamodbEndpoint: endpoint });
  const calls: TimedCall[] = [];
  db.middlewareStack.add(
    (next, context) => async (args) => {
      const start = performance.now();
      const wait = delay();
      if (wait > 0) await sleep(wait);
      try {
        return await next(args);
      } finally {
        calls.push({ op: String(context.commandName ?? '?').replace(/Command$/, ''), start, end: performance.now() });
      }
    },
    { step: 'initialize', name: 'benchCallTiming' },
  );
  return { table: { db, tableName }, calls };
}

const listEvent = (token: string): APIGatewayProxyEventV2 =>
  ({
    version: '2.0',
    routeKey: 'GET /v1/api-tokens',
    rawPath: '/v1/api-tokens',
    rawQueryString: '',
    headers: { authorization: `Bearer ${token}` },
    requestContext: { http: { method: 'GET', path: '/v1/api-tokens' }, requestId: 'bench' },
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEventV2;

/** A pro account (the operator command) and a token minted for it (the mint use case). */
async function proAccount(table: TableRef): Promise<{ accountId: string; token: string }> {
  const created = await adminCommands(table)['account:create']({
    email: `bench-${crypto.randomUUID()}@example.com`,
    password: 'bench password',
    plan: 'pro',
    'balance-usd': '10',
  });
  const account = await accountsRepo(table).get(created.account_id);
  if (!account) throw new Error('the bench account was not created');
  const minted = await mintToken({ tokens: tokensRepo(table), newTokenId }, account, { duration_minutes: 60 }, 'http://bench.invalid');
  return { accountId: account.id, token: minted.token };
}

export async function measureRateLimit(requests: number): Promise<RateLimitResult> {
  log(`rate limit: an authenticated read with and without the limiter (${requests} of each per variant)`);
  const running = new Running();
  try {
    const dynamodb = await startDynamoDbLocal();
    running.add(dynamodb.stop);
    const tableName = `bench-rate-${Date.now()}`;
    let delayMs = 0;
    const { table, calls } = timedTable(dynamodb.endpoint, tableName, () => delayMs);
    const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
    const admin = new DynamoDBClient({ endpoint: dynamodb.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    await ensureTable(admin, tableName);
    running.add(async () => admin.destroy());

    const { accountId, token } = await proAccount(table);
    const tokens = tokensRepo(table);
    // Imported here, not at the top: the module builds its default handler, and with it the process's DynamoDB
    // client, on import; at the bench's start that client would get no endpoint, and every later local stack in this
    // process (the round trips) would use it.
    const { makeHandler } = await import('../../functions/api-tokens/list.js');
    const handlers = {
      withLimiter: makeHandler({ tokens, rates: requestRateLimiter(table) }),
      without: makeHandler({ tokens, rates: { admit: async () => undefined } }),
    };
    const invoke = async (which: keyof typeof handlers) => {
      const from = calls.length;
      const t0 = performance.now();
      const answer = await handlers[which](listEvent(token), lambdaContext('ApiTokensList', 29) as ApiContext);
      const elapsed = performance.now() - t0;
      if (answer.statusCode !== 200) throw new Error(`GET /v1/api-tokens (${which}) answered ${answer.statusCode}: ${answer.body}`);
      const own = calls.slice(from);
      return { elapsed, calls: own, trips: roundTripsOf(own) };
    };
    // A pro account: 20 per second sustained. Requests with the limiter are spaced to stay within it (a refusal is not a read).
    const spacing = Math.ceil(1000 / limitsInForce({ plan: 'pro' }).requestsPerSecond) + 10;

    const variants: RateLimitVariant[] = [];
    for (const [label, delay] of [
      ['DynamoDB Local as is', 0],
      ['5 ms added per DynamoDB call', 5],
    ] as const) {
      delayMs = delay;
      for (let i = 0; i < 5; i++) {
        await invoke('without');
        await invoke('withLimiter');
        await sleep(spacing);
      }
      const samples = { withLimiter: [] as Array<Awaited<ReturnType<typeof invoke>>>, without: [] as Array<Awaited<ReturnType<typeof invoke>>> };
      for (let i = 0; i < requests; i++) {
        // Alternating which goes first, so neither always runs on a warmer connection.
        const order: Array<keyof typeof handlers> = i % 2 === 0 ? ['withLimiter', 'without'] : ['without', 'withLimiter'];
        for (const which of order) samples[which].push(await invoke(which));
        await sleep(spacing);
      }
      const summary = (list: typeof samples.without): VariantSide => {
        const byOp = new Map<string, number[]>();
        for (const call of list.flatMap((s) => s.calls)) byOp.set(call.op, [...(byOp.get(call.op) ?? []), call.end - call.start]);
        return {
          medianMs: median(list.map((s) => s.elapsed)),
          p90Ms: percentile(
            list.map((s) => s.elapsed),
            90,
          ),
          callsPerRequest: list.reduce((sum, s) => sum + s.calls.length, 0) / list.length,
          roundTrips: [...new Set(list.map((s) => s.trips))].sort(),
          opMs: Object.fromEntries([...byOp].map(([op, durations]) => [op, median(durations)])),
        };
      };
      const withLimiter = summary(samples.withLimiter);
      const without = summary(samples.without);
      const ratio = withLimiter.medianMs / without.medianMs;
      variants.push({
        label,
        delayMs: delay,
        withLimiter,
        without,
        ratio,
        addedMs: withLimiter.medianMs - without.medianMs,
        pass: withLimiter.roundTrips.every((t) => t <= 2),
      });
    }
    delayMs = 0;

    const { GetItemCommand } = await import('@aws-sdk/client-dynamodb');
    const { Item } = await admin.send(
      new GetItemCommand({ TableName: tableName, Key: { pk: { S: keys.rateLog(accountId).pk }, sk: { S: keys.rateLog(accountId).sk } } }),
    );
    const logItemBytes = itemSize(Item as WireItem | undefined);

    // Exactness, measured: concurrent invocations on a fresh pro account.
    const fresh = await proAccount(table);
    await sleep(RATE_WINDOW_MS);
    const burst = limitsInForce({ plan: 'pro' }).burst;
    const sent = 5 * burst;
    const t0 = performance.now();
    const answers = await Promise.all(
      Array.from({ length: sent }, () => handlers.withLimiter(listEvent(fresh.token), lambdaContext('ApiTokensList', 29) as ApiContext)),
    );
    const elapsedMs = performance.now() - t0;
    const admitted = answers.filter((a) => a.statusCode === 200).length;
    const refused = answers.filter((a) => a.statusCode === 429).length;
    return {
      requests,
      variants,
      logItemBytes,
      logWriteUnits: Math.ceil(logItemBytes / 1024),
      concurrent: {
        sent,
        admitted,
        refused,
        elapsedMs,
        burst,
        pass: admitted + refused === sent && admitted <= burst * Math.ceil(elapsedMs / RATE_WINDOW_MS) && (elapsedMs > RATE_WINDOW_MS || admitted <= burst),
      },
    };
  } finally {
    await running.stopAll();
  }
}

export function renderRateLimitSection(r: RateLimitResult): string[] {
  const { lines, out } = lineWriter();
  out('### 3.1 The rate limit: what it adds to an authenticated read');
  out();
  out(
    '| Variant | Median with limiter | Median without | Ratio | Added | p90 with / without | DynamoDB calls per request (with / without) | Median per call, with the limiter | Round trips on the critical path (with / without) |',
  );
  out('|---|---:|---:|---:|---:|---|---|---|---|');
  for (const v of r.variants) {
    const perCall = Object.entries(v.withLimiter.opMs)
      .map(([op, d]) => `${op} ${ms(d)}`)
      .join(', ');
    out(
      `| ${v.label} | ${ms(v.withLimiter.medianMs)} | ${ms(v.without.medianMs)} | ${times(v.ratio)} | ${ms(v.addedMs)} | ${ms(v.withLimiter.p90Ms)} / ${ms(v.without.p90Ms)} | ${num(v.withLimiter.callsPerRequest)} / ${num(v.without.callsPerRequest)} | ${perCall} | ${v.withLimiter.roundTrips.join(', ')} / ${v.without.roundTrips.join(', ')}: ${mark(v.pass)} |`,
    );
  }
  out();
  out(
    `The rate log item of a pro account (burst 40): ${r.logItemBytes} bytes, so its UpdateItem costs ${r.logWriteUnits} write unit${r.logWriteUnits === 1 ? '' : 's'} per request (refused ones too). ${r.concurrent.sent} concurrent reads on a fresh pro account: ${r.concurrent.admitted} let through, ${r.concurrent.refused} answered 429 in ${ms(r.concurrent.elapsedMs)} (burst ${r.concurrent.burst}): ${mark(r.concurrent.pass)}.`,
  );
  out();
  out(
    `**How measured.** \`npm run bench -- rate\` (bench/benchmarks/rate-limit.ts). The real handler of \`GET /v1/api-tokens\` (functions/api-tokens/list.ts) is invoked in the bench's process with an API Gateway event and a bearer token of a pro account, against DynamoDB Local, built twice: with the request rate limiter (lib/accounts/rate-limiter.ts) and with one that admits without writing. ${r.requests} requests of each, alternating which goes first, spaced to stay within the pro rate, after 5 unrecorded ones. Every DynamoDB call is timed by an SDK middleware on the client; calls that overlap in time count as one round trip on the critical path. The second variant waits 5 ms before every call, standing in for the network between a Lambda and DynamoDB that loopback does not have: there the structure (2 round trips either way; the rate write runs beside the list's Query) decides the latency, not DynamoDB Local's own speed. What the limiter adds is the time its UpdateItem outlasts the Query it runs beside; DynamoDB Local's conditional list update is slower than its Query, which the per-call medians show, so the first variant overstates it. Passes when every request with the limiter waited for at most 2 round trips.`,
  );
  out();
  return lines;
}

export function rateLimitSummary(r: RateLimitResult): string {
  const network = r.variants.at(-1)!;
  const pass = r.variants.every((v) => v.pass) && r.concurrent.pass;
  return `Rate limit on an authenticated read: ${pass ? 'at most 2 round trips on the critical path, exact under concurrency' : '**FAIL**'}; ${times(network.ratio)} the latency without it (${network.label}), ${r.logWriteUnits} write unit${r.logWriteUnits === 1 ? '' : 's'} per request on a pro account; see section 3.1.`;
}

export function rateLimitConsoleLines(r: RateLimitResult): string[] {
  return [
    '\nRate limit on an authenticated read:',
    ...r.variants.map(
      (v) =>
        `  ${v.label.padEnd(32)} ${ms(v.withLimiter.medianMs)} vs ${ms(v.without.medianMs)} (${times(v.ratio)}), round trips ${v.withLimiter.roundTrips.join(',')} vs ${v.without.roundTrips.join(',')}  ${passFail(v.pass)}`,
    ),
    `  concurrent: ${r.concurrent.admitted} of ${r.concurrent.sent} let through (burst ${r.concurrent.burst})  ${passFail(r.concurrent.pass)}`,
    `  rate log item ${r.logItemBytes} B, ${r.logWriteUnits} WCU per request`,
  ];
}
