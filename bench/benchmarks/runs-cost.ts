import type { TestMcpServer } from '../../test/helpers/mcp-server.js';
import { type AgentRunObservation, createHarness, createMachine, observeAgentRun } from '../support/agent-run.js';
import type { EngineStack } from '../support/engine-stack.js';
import { counts, lineWriter, log, num, perMillionPrice, times, usd } from '../support/format.js';
import { PRICES } from '../support/prices.js';
import { median, sum, tally } from '../support/stats.js';
import { QUIET_MS } from '../support/workflow-run.js';
import { type PurposeRow, purposeRows, type ShapeResult, sqsUsage, workerInvocations } from './engine-cost.js';

/**
 * Section 5.2: what one run of an agent costs in DynamoDB and SQS requests,
 * by purpose, at AWS list prices: a `local/script` run of two model turns
 * with one MCP tool call between them, on the section's stack.
 */

/** The script: the model asks for the MCP server's `echo`, then answers (decisions.md, `local/script`). */
export const COST_SCRIPT = { steps: [{ tool: 'tools__echo', arguments: { text: 'benchmark' } }, { reply: 'The tool answered.' }] };

export interface RunCostMeasured {
  runs: number;
  statuses: Record<string, number>;
  /** Events per run (median): the run's record. */
  eventsPerRun: number;
  purposes: PurposeRow[];
  sqs: ShapeResult['sqs'];
  /** Lambda invocations per run: the API's POST and each worker invocation that received messages, by queue. */
  lambda: { api: number; workers: Record<string, number> };
  /** MCP requests per run (list the tools, call one; each an HTTP exchange of the streamable transport). */
  mcpRequestsPerRun: number;
  /** USD per run. */
  perRun: { dynamodbWrites: number; dynamodbReads: number; sqs: number; total: number };
  units: { read: number; write: number };
}

/** `runs` runs of the script, one at a time after one unrecorded warm-up, with item sizes read on the side; set against the floor. */
export async function measureRunCost(b: EngineStack, mcp: TestMcpServer, runs: number): Promise<RunCostResult> {
  const [harnessId, machineId] = await Promise.all([
    createHarness(b.api, { model: 'local/script', mcp_servers: [{ name: 'tools', url: mcp.url('/json') }] }),
    createMachine(b.api),
  ]);
  const body = { harness_id: harnessId, machine_id: machineId, input: COST_SCRIPT };
  await observeAgentRun(b, body);
  log(`runs: cost, ${runs} local/script runs with one MCP tool call, one at a time (item sizes read on the side)`);
  b.ddb.configure({ sizing: true });
  const hits = mcp.hits.length;
  const observed: AgentRunObservation[] = [];
  for (let i = 0; i < runs; i++) observed.push(await observeAgentRun(b, body));
  b.ddb.configure({ sizing: false });
  return againstFloor(summariseRunCost(b, observed, (mcp.hits.length - hits) / runs));
}

/** ` (run-tasks-small)`, ` (run-ended DLQ)`: a queue URL of the stack by its definition's name, for SQS rows named after their action. */
export const queueLabel =
  (b: EngineStack) =>
  (url: string): string => {
    const queue = b.stack.queues.find((q) => q.url === url || q.dlqUrl === url);
    return queue ? ` (${queue.definition.name}${queue.dlqUrl === url ? ' DLQ' : ''})` : ' (other queue)';
  };

function summariseRunCost(b: EngineStack, observed: AgentRunObservation[], mcpRequestsPerRun: number): RunCostMeasured {
  const n = observed.length;
  const statuses: Record<string, number> = {};
  for (const run of observed)
    tally(statuses, run.status === 'completed' && run.output === 'The tool answered.' ? 'completed' : `${run.status} (${run.failure?.code ?? run.output})`);
  const label = queueLabel(b);
  const purposes = purposeRows(observed);
  const sqs = sqsUsage(observed, label);
  const workers: Record<string, number> = {};
  for (const queue of b.stack.queues) {
    for (const url of [queue.url, queue.dlqUrl]) {
      const invocations = sum(observed.map((run) => workerInvocations(b.sqs.calls, run.sqs, url).invocations));
      if (invocations > 0) workers[label(url).slice(2, -1)] = invocations / n;
    }
  }
  const total = (kind: 'read' | 'write') => sum(purposes.filter((p) => p.kind === kind).map((p) => p.awsUnits)) / n;
  const units = { read: total('read'), write: total('write') };
  const perRun = {
    dynamodbWrites: units.write * PRICES.dynamodbWriteRequestUnit,
    dynamodbReads: units.read * PRICES.dynamodbReadRequestUnit,
    sqs: (sqs.billed / n) * PRICES.sqsRequest,
    total: 0,
  };
  perRun.total = perRun.dynamodbWrites + perRun.dynamodbReads + perRun.sqs;
  return {
    runs: n,
    statuses,
    eventsPerRun: median(observed.map((run) => run.events.length)),
    purposes,
    sqs,
    lambda: { api: 1, workers },
    mcpRequestsPerRun,
    perRun,
    units,
  };
}

/** One item of the floor: what the design must do per run, at the minimum size, and why it cannot do less. */
export interface FloorItem {
  item: string;
  kind: 'write' | 'read' | 'sqs';
  /** Calls (or requests) per run, and their units: WRU, RRU, billed SQS requests. */
  calls: number;
  units: number;
  /** The measured purposes (lib/… function names, bench/support/call-purpose.ts) or SQS actions it accounts for. */
  matches: RegExp;
  why: string;
}

/**
 * The floor the design allows for the cost script (two model turns, one
 * tool call), item by item. Every item is at the minimum item size (≤ 1 KB
 * written, ≤ 4 KB read strongly consistent); transactional writes bill
 * 2 WRU per item, and the run item is written twice (gsi1 projects ALL).
 */
export const RUN_FLOOR: readonly FloorItem[] = [
  {
    item: 'Idempotency record: in progress, then the answer',
    kind: 'write',
    calls: 2,
    units: 2,
    matches: /^idempotency: record/,
    why: 'Every v2 POST but cancel takes an Idempotency-Key (specification). The record is written before the work, so a concurrent retry finds it in progress, and completed with the answer, so a later retry gets the same run: two writes.',
  },
  {
    item: 'createRun: the run, its first event page, the machine held',
    kind: 'write',
    calls: 1,
    units: 8,
    matches: /^createRun:/,
    why: 'A run is never without its events, and one run at a time per machine is exact only if the hold is written with the run: one transaction of three items (2 WRU each) plus the run’s copy in gsi1 (the account’s run list; the index projects ALL).',
  },
  {
    item: 'takeLease: the worker’s lease on the run',
    kind: 'write',
    calls: 1,
    units: 2,
    matches: /^takeLease/,
    why: 'The loop is held by a lease before any model call, so that a worker that dies is taken over and two workers never call the model for one run: one conditional write per worker invocation (the run item and its gsi1 copy).',
  },
  {
    item: 'Two recorded steps: the model turn that asks for the tool, the tool’s result',
    kind: 'write',
    calls: 2,
    units: 16,
    matches: /^record a step:/,
    why: 'Each step is durable before the next starts, so a takeover never repeats a model call or a tool call: the run (event_seq, turns, usage; and its gsi1 copy), the page of the step’s events and the step item, in one transaction on the lease’s condition.',
  },
  {
    item: 'endRun: the final model turn ends the run and frees the machine',
    kind: 'write',
    calls: 1,
    units: 10,
    matches: /^endRun/,
    why: 'The answer is recorded like any step and ends the run in the same transaction (run → completed, its events, its step), which also releases the machine: one more item than a step.',
  },
  {
    item: 'Bearer authentication: the token and its account',
    kind: 'read',
    calls: 1,
    units: 2,
    matches: /bearer authentication/,
    why: 'The token item names its account; both are read in one BatchGetItem (section 3 counts the same for every authenticated request).',
  },
  {
    item: 'The harness, at creation',
    kind: 'read',
    calls: 1,
    units: 1,
    matches: /^get harness/,
    why: 'The run keeps a copy of its (immutable) harness and checks it can run; one read.',
  },
  {
    item: 'The machine: at creation, and after the end',
    kind: 'read',
    calls: 2,
    units: 2,
    matches: /^get machine/,
    why: 'Creation reads whether the machine is idle (start at once) or busy (queue); after the end, whether a run waits for it (hand it on). A transaction returns no values, so neither can come from a write.',
  },
  {
    item: 'The worker: the run, its recorded steps, its instructions',
    kind: 'read',
    calls: 3,
    units: 3,
    matches: /^(get run|steps|harnessFile)/,
    why: 'A run-task message carries only the run id: the worker reads the run (its status says what to do), the steps already recorded (to replay, not repeat them) and the harness’s instructions file (the system prompt).',
  },
  {
    item: 'The end notice’s consumer: one Query',
    kind: 'read',
    calls: 1,
    units: 1,
    matches: /^runAttempts \(Query/,
    why: 'The features that follow runs (evaluations) look the ended run up in their own partition (lib/runs/run-ended.ts: "a message about a run no feature recorded costs its worker one Query").',
  },
  {
    item: 'The run-task message: sent, received, deleted',
    kind: 'sqs',
    calls: 3,
    units: 3,
    matches: /\(run-tasks-/,
    why: 'A run that starts is woken once (lib/runs/machine-queue.ts); the event source mapping receives the message and deletes it after the worker: three requests.',
  },
  {
    item: 'The end notice (run-ended): sent, received, deleted',
    kind: 'sqs',
    calls: 3,
    units: 3,
    matches: /\(run-ended/,
    why: 'A run’s end is told to the features that follow runs by a message (lib/runs/run-ended.ts), which its worker receives and deletes.',
  },
];

export interface FloorRow {
  item: string;
  kind: FloorItem['kind'];
  why: string;
  floor: { calls: number; units: number };
  measured: { calls: number; units: number; purposes: string[] };
}

export interface RunCostResult extends RunCostMeasured {
  floor: FloorRow[];
  /** Measured purposes or SQS actions no floor item accounts for. */
  beyond: Array<{ what: string; kind: FloorItem['kind']; calls: number; units: number }>;
  floorPerRun: { dynamodbWrites: number; dynamodbReads: number; sqs: number; total: number };
  prices: typeof PRICES;
}

/** The measured calls set against the floor, item by item. */
export function againstFloor(m: RunCostMeasured): RunCostResult {
  const n = m.runs;
  const measuredRows = [
    ...m.purposes.map((p) => ({ what: p.purpose, kind: p.kind as FloorItem['kind'], calls: p.calls / n, units: p.awsUnits / n })),
    ...m.sqs.actions.map((a) => ({ what: a.action, kind: 'sqs' as const, calls: a.calls / n, units: a.billed / n })),
  ];
  const claimed = new Set<string>();
  const floor = RUN_FLOOR.map((f): FloorRow => {
    const rows = measuredRows.filter((r) => r.kind === f.kind && f.matches.test(r.what));
    for (const r of rows) claimed.add(r.what);
    return {
      item: f.item,
      kind: f.kind,
      why: f.why,
      floor: { calls: f.calls, units: f.units },
      measured: { calls: sum(rows.map((r) => r.calls)), units: sum(rows.map((r) => r.units)), purposes: rows.map((r) => r.what) },
    };
  });
  const units = (kind: FloorItem['kind']) => sum(RUN_FLOOR.filter((f) => f.kind === kind).map((f) => f.units));
  const floorPerRun = {
    dynamodbWrites: units('write') * PRICES.dynamodbWriteRequestUnit,
    dynamodbReads: units('read') * PRICES.dynamodbReadRequestUnit,
    sqs: units('sqs') * PRICES.sqsRequest,
    total: 0,
  };
  floorPerRun.total = floorPerRun.dynamodbWrites + floorPerRun.dynamodbReads + floorPerRun.sqs;
  return { ...m, floor, beyond: measuredRows.filter((r) => !claimed.has(r.what)), floorPerRun, prices: PRICES };
}

const KIND: Record<FloorItem['kind'], string> = { write: 'DynamoDB write (WRU)', read: 'DynamoDB read (RRU)', sqs: 'SQS (requests)' };
const perMillion = (usdPerRun: number) => usd(usdPerRun * 1e6);

export function renderRunCostSection(c: RunCostResult, section: number): string[] {
  const { lines, out } = lineWriter();
  const ratio = c.perRun.total / c.floorPerRun.total;
  out(`### ${section}.2 Cost of a run: DynamoDB and SQS requests against the floor`);
  out();
  out(
    `**A \`local/script\` run of two model turns with one MCP tool call between them: ${perMillion(c.perRun.total)} per million runs in DynamoDB and SQS requests at AWS list prices, ${times(ratio)} the floor the design allows (${perMillion(c.floorPerRun.total)}).**`,
  );
  out();
  out('| Per run | DynamoDB writes | DynamoDB reads | SQS | **Total** | USD per million runs |');
  out('|---|---:|---:|---:|---:|---:|');
  const kindTotals = (rows: Array<{ kind: FloorItem['kind']; units: number }>, kind: FloorItem['kind']) =>
    sum(rows.filter((r) => r.kind === kind).map((r) => r.units));
  const measuredAll = [...c.floor.map((f) => ({ kind: f.kind, units: f.measured.units })), ...c.beyond];
  out(
    `| Measured | ${num(kindTotals(measuredAll, 'write'), 1)} WRU | ${num(kindTotals(measuredAll, 'read'), 1)} RRU | ${num(kindTotals(measuredAll, 'sqs'), 1)} requests | | **${perMillion(c.perRun.total)}** |`,
  );
  out(
    `| Floor the design allows | ${num(
      kindTotals(
        c.floor.map((f) => ({ kind: f.kind, units: f.floor.units })),
        'write',
      ),
      1,
    )} WRU | ${num(
      kindTotals(
        c.floor.map((f) => ({ kind: f.kind, units: f.floor.units })),
        'read',
      ),
      1,
    )} RRU | ${num(
      kindTotals(
        c.floor.map((f) => ({ kind: f.kind, units: f.floor.units })),
        'sqs',
      ),
      1,
    )} requests | | **${perMillion(c.floorPerRun.total)}** |`,
  );
  out(
    `| Measured ÷ floor | ${times(c.perRun.dynamodbWrites / c.floorPerRun.dynamodbWrites)} | ${times(c.perRun.dynamodbReads / c.floorPerRun.dynamodbReads)} | ${times(c.perRun.sqs / c.floorPerRun.sqs)} | | **${times(ratio)}** |`,
  );
  out();
  out('The floor item by item, with what was measured against it (per run):');
  out();
  out('| Item | Kind | Floor: calls / units | Measured: calls / units | Measured as (function and call) | Why the design cannot do with less |');
  out('|---|---|---:|---:|---|---|');
  for (const f of c.floor) {
    const more = f.measured.units > f.floor.units + 1e-9 ? ' **(more)**' : '';
    out(
      `| ${f.item} | ${KIND[f.kind]} | ${num(f.floor.calls, 0)} / ${num(f.floor.units, 0)} | ${num(f.measured.calls)} / ${num(f.measured.units)}${more} | ${f.measured.purposes.join('; ') || 'nothing measured'} | ${f.why} |`,
    );
  }
  for (const b of c.beyond)
    out(`| _Beyond the floor_ | ${KIND[b.kind]} | 0 / 0 | ${num(b.calls)} / ${num(b.units)} **(more)** | ${b.what} | not an item of the design's floor |`);
  out();
  const workers = Object.entries(c.lambda.workers)
    .map(([queue, k]) => `${num(k)} on ${queue}`)
    .join(', ');
  out(
    `**How measured.** On the section's stack, a harness of \`local/script\` with one MCP server (the tests' server, test/helpers/mcp-server.ts, its stateless JSON endpoint on 127.0.0.1, reached through the outbound guard) and one small machine; each run's input is the script \`${JSON.stringify(COST_SCRIPT)}\`: the first model turn asks for \`tools__echo\`, the worker calls it, the second turn answers and ends the run (decisions.md, \`local/script\`). ${c.runs} runs one at a time after one unrecorded warm-up (${counts(c.statuses)}; ${num(c.eventsPerRun, 0)} events each), each observed from \`POST /v2/runs\` until it had ended and the service had gone quiet (${QUIET_MS} ms without a call but empty long polls), so the worker, the machine's hand-on and the end notice's consumer are inside its window. DynamoDB and SQS are counted and billed as in section 4.1 (the proxies; transactions and failed conditions sized from the items, read on the side; SQS one request per started 64 KB); calls are named by bench/support/call-purpose.ts from their keys. Not in the figure, for context: Lambda invocations per run, 1 API + ${workers}; the MCP server got ${num(c.mcpRequestsPerRun, 1)} HTTP requests per run (listing the tools and calling one, each over a fresh streamable-HTTP session); the empty long polls (${c.sqs.emptyReceives} in the window) are a fixed cost per queue, not per run (section 4.1). A measured row over its floor is marked **(more)**. The run is woken just before its creation's transaction (lib/runs/create-run.ts, so that no running run is without a message), and a worker that gets the message before the transaction has committed finds no run: it reads again a few milliseconds later in the same invocation, one more read, and only if the run is still absent asks for a new message a second later (lib/runs/move-run.ts), a send, a receive and a delete more.`,
  );
  out();
  out(
    `Prices as in section 4.1 (${c.prices.region}, list, as of ${c.prices.asOf}): DynamoDB on-demand ${perMillionPrice(c.prices.dynamodbWriteRequestUnit)} per million WRU and ${perMillionPrice(c.prices.dynamodbReadRequestUnit)} per million RRU; SQS ${perMillionPrice(c.prices.sqsRequest)} per million requests.`,
  );
  out();
  return lines;
}

export const runCostSummary = (c: RunCostResult): string =>
  `Cost of a \`local/script\` run (two model turns, one MCP tool call) in DynamoDB and SQS requests: ${perMillion(c.perRun.total)} per million runs (writes ${perMillion(c.perRun.dynamodbWrites)}, reads ${perMillion(c.perRun.dynamodbReads)}, SQS ${perMillion(c.perRun.sqs)}), ${times(c.perRun.total / c.floorPerRun.total)} the floor the design allows (${perMillion(c.floorPerRun.total)})`;

export const runCostConsoleLines = (c: RunCostResult): string[] => [
  `Cost of a local/script run (2 model turns, 1 MCP call), per million runs:`,
  `  measured ${perMillion(c.perRun.total)} (writes ${perMillion(c.perRun.dynamodbWrites)}, reads ${perMillion(c.perRun.dynamodbReads)}, SQS ${perMillion(c.perRun.sqs)}); floor ${perMillion(c.floorPerRun.total)}; ${times(c.perRun.total / c.floorPerRun.total)} the floor`,
  ...c.beyond.map((b) => `  beyond the floor: ${b.what} ${num(b.calls)} per run`),
];
