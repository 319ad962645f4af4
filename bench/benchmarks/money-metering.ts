import { keyKind, purposeOf } from '../support/call-purpose.js';
import type { DynamoCall } from '../support/dynamo-billing.js';
import type { EngineStack } from '../support/engine-stack.js';
import { lineWriter, log, ms, num, pct } from '../support/format.js';
import { median, sum } from '../support/stats.js';
import { observeRun, type RunObservation } from '../support/workflow-run.js';
import type { Shape } from '../support/workflow-shapes.js';
import { roundTripsOf } from './rate-limit.js';

/**
 * Section 7.1: what metering (usage windows, the activity day, work in
 * progress, the account's plan) and the request rate limit add to a
 * workflow request, per node and per authenticated request, from the
 * DynamoDB calls the counting proxy saw while the 10-node chain ran, each
 * call (each item of a transaction) attributed by the item it touches.
 */

type Wire = Record<string, Record<string, unknown>>;

/** The items metering and the rate limit keep (bench/support/call-purpose.ts names them from their keys). */
export const MONEY_KINDS = ['usage windows', 'account', 'activity day', 'work in progress', 'rate log'] as const;
const isMoney = (kind: string) => (MONEY_KINDS as readonly string[]).includes(kind) || kind.startsWith('ledger');

interface ItemCost {
  kind: string;
  /** `GetItem`, `Update in TransactWriteItems`, … */
  how: string;
  read: boolean;
  units: number;
}

/** A call's units, split by the item each part touches: a transaction's by its items (sized), a single-item call's whole. */
export function itemCosts(call: DynamoCall): ItemCost[] {
  const r = call.request ?? {};
  const read = call.kind === 'read';
  if (call.op === 'TransactWriteItems') {
    const entries = (r.TransactItems as Array<Record<string, Record<string, unknown>>>) ?? [];
    return entries.map((entry, i) => {
      const [action, spec] = Object.entries(entry)[0] ?? ['?', {}];
      return {
        kind: keyKind((spec.Key ?? spec.Item) as Wire | undefined),
        how: `${action} in TransactWriteItems`,
        read: false,
        units: call.itemUnits?.[i] ?? call.awsUnits / Math.max(1, entries.length),
      };
    });
  }
  if (call.op === 'BatchGetItem' || call.op === 'BatchWriteItem') return [{ kind: purposeOf(call), how: call.op, read, units: call.awsUnits }];
  const key = (r.Key ?? r.Item) as Wire | undefined;
  if (key) return [{ kind: keyKind(key), how: call.op, read, units: call.awsUnits }];
  if (call.op === 'Query') {
    const values = (r.ExpressionAttributeValues as Wire | undefined) ?? {};
    const sk = Object.entries(values).find(([name, v]) => name !== ':pk' && typeof v.S === 'string')?.[1];
    const kind = values[':pk'] && sk ? keyKind({ pk: values[':pk']!, sk }) : purposeOf(call);
    return [{ kind, how: 'Query', read, units: call.awsUnits }];
  }
  return [{ kind: purposeOf(call), how: call.op, read, units: call.awsUnits }];
}

export interface MeteringRow {
  kind: string;
  how: string;
  money: boolean;
  callsPerRun: number;
  readUnitsPerRun: number;
  writeUnitsPerRun: number;
}

export interface MeteringTotals {
  readUnits: number;
  writeUnits: number;
  calls: number;
}

export interface AuthenticatedRead {
  requests: number;
  /** Per request, by item kind: calls and units. */
  rows: Array<{ kind: string; how: string; calls: number; readUnits: number; writeUnits: number }>;
  roundTrips: { median: number; max: number };
  latencyMs: number;
}

export interface MeteringResult {
  runs: number;
  nodesPerRun: number;
  statuses: Record<string, number>;
  rows: MeteringRow[];
  money: MeteringTotals;
  rest: MeteringTotals;
  runMsMedian: number;
  read: AuthenticatedRead;
}

function rowsOf(observations: readonly RunObservation[]): MeteringRow[] {
  const rows = new Map<string, MeteringRow>();
  const n = observations.length;
  for (const call of observations.flatMap((o) => o.ddb)) {
    if (call.kind === 'other') continue;
    for (const item of itemCosts(call)) {
      const id = `${item.kind}\n${item.how}`;
      const row = rows.get(id) ?? { kind: item.kind, how: item.how, money: isMoney(item.kind), callsPerRun: 0, readUnitsPerRun: 0, writeUnitsPerRun: 0 };
      row.callsPerRun += 1 / n;
      if (item.read) row.readUnitsPerRun += item.units / n;
      else row.writeUnitsPerRun += item.units / n;
      rows.set(id, row);
    }
  }
  return [...rows.values()].sort(
    (a, b) => Number(b.money) - Number(a.money) || b.writeUnitsPerRun + b.readUnitsPerRun - (a.writeUnitsPerRun + a.readUnitsPerRun),
  );
}

const totals = (rows: readonly MeteringRow[]): MeteringTotals => ({
  readUnits: sum(rows.map((r) => r.readUnitsPerRun)),
  writeUnits: sum(rows.map((r) => r.writeUnitsPerRun)),
  calls: sum(rows.map((r) => r.callsPerRun)),
});

/** `GET /v1/activity/daily?days=30`, one at a time: the calls each makes, by item, and its round trips (calls overlapping in time are one). */
async function authenticatedRead(b: EngineStack, requests: number): Promise<AuthenticatedRead> {
  const per: DynamoCall[][] = [];
  const times: number[] = [];
  for (let i = 0; i <= requests; i++) {
    const before = b.ddb.calls.length;
    const t0 = performance.now();
    const answer = await b.api('GET', '/v1/activity/daily?days=30');
    const elapsed = performance.now() - t0;
    if (answer.status !== 200) throw new Error(`GET /v1/activity/daily answered ${answer.status}`);
    if (i === 0) continue;
    times.push(elapsed);
    per.push(b.ddb.calls.slice(before).filter((c) => c.kind !== 'other'));
  }
  const rows = new Map<string, AuthenticatedRead['rows'][number]>();
  for (const call of per.flat()) {
    for (const item of itemCosts(call)) {
      const id = `${item.kind}\n${item.how}`;
      const row = rows.get(id) ?? { kind: item.kind, how: item.how, calls: 0, readUnits: 0, writeUnits: 0 };
      row.calls += 1 / per.length;
      if (item.read) row.readUnits += item.units / per.length;
      else row.writeUnits += item.units / per.length;
      rows.set(id, row);
    }
  }
  const trips = per.map((calls) => roundTripsOf(calls.map((c) => ({ op: c.op, start: c.startedAt, end: c.endedAt }))));
  return { requests: per.length, rows: [...rows.values()], roundTrips: { median: median(trips), max: Math.max(...trips) }, latencyMs: median(times) };
}

/** `runs` runs of the chain (created and warmed by the caller), one at a time, item sizes read on the side; then the authenticated read. */
export async function measureMetering(b: EngineStack, chain: Shape, runs: number, reads: number): Promise<MeteringResult> {
  log(`money: metering, ${runs} runs of the ${chain.title}, ${reads} authenticated reads`);
  b.ddb.configure({ sizing: true });
  const observations: RunObservation[] = [];
  try {
    for (let i = 0; i < runs; i++) observations.push(await observeRun(b, chain));
  } finally {
    b.ddb.configure({ sizing: false });
  }
  const statuses: Record<string, number> = {};
  for (const o of observations) statuses[o.status] = (statuses[o.status] ?? 0) + 1;
  const nodes = median(observations.map((o) => o.nodes.filter((n) => n.status === 'completed').length));
  const rows = rowsOf(observations);
  return {
    runs,
    nodesPerRun: nodes,
    statuses,
    rows,
    money: totals(rows.filter((r) => r.money)),
    rest: totals(rows.filter((r) => !r.money)),
    runMsMedian: median(observations.map((o) => o.totalMs)),
    read: await authenticatedRead(b, reads),
  };
}

export function renderMeteringSection(m: MeteringResult, section: number): string[] {
  const { lines, out } = lineWriter();
  const n = m.nodesPerRun;
  const all = { readUnits: m.money.readUnits + m.rest.readUnits, writeUnits: m.money.writeUnits + m.rest.writeUnits };
  out(`### ${section}.1 What metering and the rate limit add: per node and per request`);
  out();
  out(
    `A workflow request of the 10-node chain (${num(n, 0)} nodes executed, ${Object.entries(m.statuses)
      .map(([s, c]) => `${s} ×${c}`)
      .join(', ')}), per request and per node, the money items apart:`,
  );
  out();
  out('| Item (call) | Money | Calls per request | RRU per request | WRU per request | WRU per node | RRU per node |');
  out('|---|---|---:|---:|---:|---:|---:|');
  for (const r of m.rows.filter((row) => row.money)) {
    out(
      `| ${r.kind} (${r.how}) | yes | ${num(r.callsPerRun, 1)} | ${num(r.readUnitsPerRun, 1)} | ${num(r.writeUnitsPerRun, 1)} | ${num(r.writeUnitsPerRun / n)} | ${num(r.readUnitsPerRun / n)} |`,
    );
  }
  out(
    `| **money items** | | ${num(m.money.calls, 1)} | **${num(m.money.readUnits, 1)}** | **${num(m.money.writeUnits, 1)}** | **${num(m.money.writeUnits / n)}** | **${num(m.money.readUnits / n)}** |`,
  );
  out(
    `| everything else (${m.rows.filter((r) => !r.money).length} kinds: nodes, request, events, authentication, …) | | ${num(m.rest.calls, 1)} | ${num(m.rest.readUnits, 1)} | ${num(m.rest.writeUnits, 1)} | ${num(m.rest.writeUnits / n)} | ${num(m.rest.readUnits / n)} |`,
  );
  out(
    `| all | | ${num(m.money.calls + m.rest.calls, 1)} | ${num(all.readUnits, 1)} | ${num(all.writeUnits, 1)} | ${num(all.writeUnits / n)} | ${num(all.readUnits / n)} |`,
  );
  out(
    `| money's share | | ${pct(m.money.calls, m.money.calls + m.rest.calls)} of calls | ${pct(m.money.readUnits, all.readUnits)} | ${pct(m.money.writeUnits, all.writeUnits)} | | |`,
  );
  out();
  out(
    `An authenticated read (\`GET /v1/activity/daily?days=30\`, ${m.read.requests} requests): ${m.read.rows.map((r) => `${r.kind} (${r.how}) ×${num(r.calls, 1)}${r.readUnits ? `, ${num(r.readUnits, 1)} RRU` : ''}${r.writeUnits ? `, ${num(r.writeUnits, 1)} WRU` : ''}`).join('; ')}; round trips on its critical path, from the proxy's timestamps (ms): median ${num(m.read.roundTrips.median, 0)}, max ${num(m.read.roundTrips.max, 0)} (section 3.1 times them at the client: 2, the rate log's UpdateItem beside the authentication's BatchGetItem); ${ms(m.read.latencyMs)} median.`,
  );
  out();
  out(
    `**How measured.** On the local stack of this section's process (below), the 10-node chain of section 4 (bench/support/workflow-shapes.ts) was started ${m.runs} times with \`POST /v1/workflow-requests/run\` by a pro account within its usage windows, one at a time, each watched until it was over and the service quiet (bench/support/workflow-run.ts), after one unrecorded run. Every DynamoDB call the counting proxy saw in a request's window is split by the item it touches (bench/support/call-purpose.ts names items from their keys): a TransactWriteItems by its items, each at 2 × its size in write units (item sizes read on the side), a single-item call whole. Money items are the ones metering and the rate limit keep: ${MONEY_KINDS.map((k) => `the ${k}`).join(', ')} (and ledger items, when a debit is written; none here, the usage stays within the plan's windows). Units are AWS's rules (section 4.1). The authenticated reads went one at a time after the runs; the calls the proxy saw while one was in flight are its own. Median run ${ms(m.runMsMedian)}.`,
  );
  out();
  return lines;
}

export const meteringSummary = (m: MeteringResult): string =>
  `Metering and the rate limit on the 10-node chain: ${num(m.money.writeUnits / m.nodesPerRun)} WRU and ${num(m.money.readUnits / m.nodesPerRun)} RRU per node of ${num((m.money.writeUnits + m.rest.writeUnits) / m.nodesPerRun)} WRU and ${num((m.money.readUnits + m.rest.readUnits) / m.nodesPerRun)} RRU (${pct(m.money.writeUnits, m.money.writeUnits + m.rest.writeUnits)} of write units); an authenticated read makes ${num(sum(m.read.rows.map((r) => r.calls)), 0)} DynamoDB calls in ${num(m.read.roundTrips.median, 0)} round trips`;

export const meteringConsoleLines = (m: MeteringResult): string[] => [
  `Money items per 10-node request (${m.runs} runs):`,
  ...m.rows
    .filter((r) => r.money)
    .map(
      (r) =>
        `  ${`${r.kind} (${r.how})`.padEnd(48)} ${num(r.callsPerRun, 1).padStart(5)} calls ${num(r.readUnitsPerRun, 1).padStart(6)} RRU ${num(r.writeUnitsPerRun, 1).padStart(6)} WRU`,
    ),
  `  money: ${num(m.money.writeUnits / m.nodesPerRun)} WRU/node, ${num(m.money.readUnits / m.nodesPerRun)} RRU/node; rest: ${num(m.rest.writeUnits / m.nodesPerRun)} WRU/node, ${num(m.rest.readUnits / m.nodesPerRun)} RRU/node`,
  `  authenticated read: ${num(sum(m.read.rows.map((r) => r.calls)), 1)} calls, round trips median ${num(m.read.roundTrips.median, 0)}`,
];
