import { counts, lineWriter, ms, num, pct, perMillionPrice, times, usd } from '../support/format.js';
import { QUIET_MS } from '../support/workflow-run.js';
import { isChain } from '../support/workflow-shapes.js';
import { renderLocalChecks } from './dynamodb-local-checks.js';
import type { CostResults, PurposeRow, ShapeResult } from './engine-cost.js';

/** Section 4.1 of docs/benchmarks.md: the engine's cost per million node executions, what dominates it, and its floor. */

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
function dominance(s: ShapeResult): string {
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
    `**${s.title}: ${topName} dominate, ${usd(topUsd)} of the ${usd(c.total)} per million nodes (${pct(topUsd, c.total)})${topUsd > s.target ? `, ${times(topUsd / s.target)} the whole target on their own` : ''}.**`,
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
function floorParagraph(e: CostResults, s: ShapeResult): string {
  const p = e.prices;
  const n = s.nodesExecuted;
  const writes = s.purposes.filter((r) => r.kind === 'write');
  const wruPrice = p.dynamodbWriteRequestUnit * 1e6;
  const floorWru = s.units.floorWrite / n;
  const nonDynamo = s.perMillion.sqs + s.perMillion.lambdaRequests + s.perMillion.lambdaDuration;
  const left = s.target - nonDynamo - s.perMillion.dynamodbReads;
  const listed = writes
    .filter((r) => r.calls / n >= 0.05)
    .map((r) => `${r.purpose} ×${num(r.calls / n)} = ${num(r.floorUnits / n)} WRU`)
    .join('; ');
  const verdict =
    s.floorPerMillion.total > s.target
      ? `${times(s.floorPerMillion.total / s.target)} the target: the design cannot meet ${usd(s.target)} by making items smaller; it has to make fewer writes`
      : `within the target`;
  return (
    `**The floor of the current design (${s.title.toLowerCase()}).** The writes the engine made per node, named after the functions in lib/execution/executor.ts and lib/execution/workflow-requests-repository.ts (the request's creation amortised over its ${s.nodesPerRun} nodes): ${listed}. ` +
    `At the minimum item size (≤ 1 KB; ${Math.abs(s.units.floorWrite - s.units.write) < 1e-9 ? 'these runs already are' : `these runs used ${num(s.units.write / n)}`}) that is ${num(floorWru)} WRU per node, ${usd(floorWru * wruPrice)} per million nodes; adding the SQS requests (${num(s.sqs.billed / n)} per node) and the Lambda requests (${num((s.lambda.workerInvocations + s.lambda.deadLetterInvocations + s.lambda.apiInvocations) / n)} invocations per node), the floor is ${usd(s.floorPerMillion.total)} per million nodes before any read or Lambda duration, ${verdict}. ` +
    `With SQS, Lambda (duration included) and reads as measured (${usd(nonDynamo + s.perMillion.dynamodbReads)} per million nodes), the target leaves ${left > 0 ? `${usd(left)} per million nodes for writes, i.e. ${num(left / wruPrice)} one-KB write units per node against the ${num(s.units.write / n)} measured` : 'nothing for writes'}. ` +
    `Compared with Step Functions Standard at one state transition per node (${usd(p.stepFunctionsStandardTransition * 1e6)} per million), the measured ${usd(s.perMillion.total)} is ${pct(s.perMillion.total, p.stepFunctionsStandardTransition * 1e6)} of it.` +
    queuedPath(e, s)
  );
}

/**
 * For a shape whose every node goes through the queue (a worker invocation
 * each): what each node is left with, the floor of a node through the queue
 * in this design, and what is the request's own, spread over its nodes.
 * Items made about once per node are the node's; the rest are the request's.
 */
function queuedPath(e: CostResults, s: ShapeResult): string {
  const p = e.prices;
  const n = s.nodesExecuted;
  const invocations = (s.lambda.workerInvocations + s.lambda.deadLetterInvocations) / n;
  if (invocations < 0.9) return '';
  const everyNode = (calls: number) => calls / n >= 0.9;
  const writes = s.purposes.filter((r) => r.kind === 'write');
  const nodeWrites = writes.filter((r) => everyNode(r.calls));
  const nodeReads = s.purposes.filter((r) => r.kind === 'read' && everyNode(r.calls));
  const nodeSqs = s.sqs.actions.filter((a) => everyNode(a.calls));
  const wru = sumUnits(nodeWrites, 'floorUnits') / n;
  const sqsRequests = nodeSqs.reduce((t, a) => t + a.billed, 0) / n;
  const perNode = (wru * p.dynamodbWriteRequestUnit + sqsRequests * p.sqsRequest + invocations * p.lambdaRequest) * 1e6;
  const requestWrites = writes.filter((r) => !everyNode(r.calls) && r.calls / n >= 0.05);
  const reads = nodeReads.length
    ? `reads ${nodeReads.map((r) => `${r.purpose} ×${num(r.calls / n)}`).join(', ')} (${num(sumUnits(nodeReads) / n)} RRU, not in the floor)`
    : 'no read (every read left is the request’s)';
  return (
    ` **What is left of the queued path.** Per node: ${nodeWrites.map((r) => `${r.purpose} ×${num(r.calls / n)}`).join(', ')} (${num(wru)} WRU at ≤ 1 KB); ${reads}; ${nodeSqs.map((a) => `${a.action} ${num(a.calls / n)}`).join(', ')} (${num(sqsRequests)} SQS requests); ${num(invocations)} worker invocation: ${usd(perNode)} per million nodes, the floor of a node through the queue in this design. ` +
    `The rest of the floor, ${usd(s.floorPerMillion.total - perNode)} per million nodes, is the request’s own, paid once and spread here over its ${s.nodesPerRun} nodes: ${[
      ...requestWrites.map((r) => `${r.purpose} ×${num((r.calls / n) * s.nodesPerRun)}`),
      `${num((s.lambda.apiInvocations / n) * s.nodesPerRun)} API invocation`,
      ...(s.sqs.billed / n - sqsRequests > 0.005 ? [`${num((s.sqs.billed / n - sqsRequests) * s.nodesPerRun)} SQS requests`] : []),
    ].join('; ')} per request.`
  );
}

function writeTable(out: (line?: string) => void, s: ShapeResult): void {
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

function readTable(out: (line?: string) => void, s: ShapeResult): void {
  out('| Read | Calls per node | RRU per node | Billed as |');
  out('|---|---:|---:|---|');
  for (const r of s.purposes.filter((p) => p.kind === 'read')) {
    out(`| ${r.purpose} | ${num(r.calls / s.nodesExecuted)} | ${num(r.awsUnits / s.nodesExecuted)} | ${bases(r)} |`);
  }
}

export function renderCostSection(e: CostResults, section: number): string[] {
  const { lines, out } = lineWriter();
  const p = e.prices;
  out(`### ${section}.1 Cost per million node executions`);
  out();
  out(
    `Targets: at most ${usd(e.target)} per million node executions for shapes of pure nodes, run inline (Step Functions Standard charges ${usd(p.stepFunctionsStandardTransition * 1e6)} per million state transitions), and ${usd(Math.max(...e.shapes.map((s) => s.target)))} for the queued chain, whose every node takes a claim, a queue hop and a worker invocation.`,
  );
  out();
  for (const s of e.shapes) out(`- **${s.title}: ${usd(s.perMillion.total)} per million node executions, ${over(s.perMillion.total, s.target)}.**`);
  out();
  out(
    `| Shape | Node executions measured | DynamoDB writes | DynamoDB reads | SQS | Lambda requests | Lambda duration | **Total per million nodes** | Target |`,
  );
  out('|---|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const s of e.shapes) {
    const c = s.perMillion;
    out(
      `| ${s.title} | ${s.nodesExecuted} (${s.runs} requests) | ${usd(c.dynamodbWrites)} | ${usd(c.dynamodbReads)} | ${usd(c.sqs)} | ${usd(c.lambdaRequests)} | ${usd(c.lambdaDuration)} | **${usd(c.total)}** | ${c.total <= s.target ? 'pass' : '**FAIL**'} |`,
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
      `| ${s.title} | ${num(s.units.write / n)} | ${num(s.units.read / n)} | ${num(s.sqs.billed / n)} | ${num((l.workerInvocations + l.deadLetterInvocations) / n)} + ${num(l.apiInvocations / n)} | ${num(l.nodesPerWorkerInvocation)} | ${ms(l.workerMsMedian)} | ${num(l.gbSeconds / n, 4)} | ${counts(s.requestStatuses)}; nodes ${counts(s.nodeStatuses)} |`,
    );
  }
  out();

  // What dominates, and the floor.
  for (const s of e.shapes) {
    out(dominance(s));
    out();
  }
  for (const s of e.shapes.filter(isChain)) {
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

  for (const line of renderLocalChecks(e)) out(line);
  out(
    `**How measured.** The DynamoDB proxy adds \`"ReturnConsumedCapacity": "INDEXES"\` to every GetItem, PutItem, UpdateItem, DeleteItem, Query, Scan, BatchGetItem, BatchWriteItem, TransactWriteItems and TransactGetItems request and sums the \`ConsumedCapacity\` of the answers, which go back to the service unchanged; reads and writes are told apart by operation. During the cost runs it also reads written items straight from DynamoDB Local (not counted, not seen by the service) to size transactions and failed conditional writes. The SQS proxy records every call by \`X-Amz-Target\` action with its payload (message bodies and attributes; billed requests = one per started 64 KB). Lambda invocations: one per ReceiveMessage on the node-tasks queue that returned messages (the local poller, like the event source mapping, invokes the worker once per batch), plus the dead-letter worker's (${e.shapes.reduce((t, s) => t + s.lambda.deadLetterInvocations, 0)} here), plus one API invocation (\`POST /run\`) per request; the \`GET\` polls a client would make are not counted (the bench waits for completion with its own uncounted reads). Each request's window runs from \`POST /run\` until its request is terminal and nothing but an empty long poll has happened for ${QUIET_MS} ms, so trailing writes and the poller's last delete are inside it; requests run one at a time after one unrecorded warm-up request per shape. Duration: a worker invocation lasts from the receive that returned its batch to the poller's next call on the queue (its delete), rounded up to 1 ms; an API invocation is the \`POST /run\` wall time; both at ${e.memory.workerMb} MB for the worker and ${e.memory.apiMb} MB for the API function (${e.memory.source}). These are this machine's times against DynamoDB Local, not Lambda's, and Lambda's init phase on cold starts is not included; Lambda duration is ${e.shapes.map((s) => `${pct(s.perMillion.lambdaDuration, s.perMillion.total)} (${s.title})`).join(' and ')} of the total.`,
  );
  out();
  out(
    `Not per node: the event source mapping polls each queue (the node-tasks queue and its dead-letter queue) with long polling whether or not there is work, and those receives are SQS requests too: one poller waiting 20 s at a time makes about ${Math.round((30 * 86_400) / 20).toLocaleString('en-US')} requests a month (${usd(((30 * 86_400) / 20) * p.sqsRequest)}), and AWS runs several pollers per queue. They are a fixed monthly cost per queue, so empty receives are counted apart (${e.shapes.reduce((t, s) => t + s.sqs.emptyReceives, 0)} in the cost runs, locally with 5-second waits) and left out of the per-node figures. In these runs the worker executed ${e.shapes.map((s) => `${num(s.lambda.nodesPerWorkerInvocation, 1)} nodes per invocation in the ${s.title}`).join(' and ')}; the local poller hands the worker every ready message it receives (up to 10) as one batch, while AWS runs several pollers per queue, so where tasks go through the queue its batches can be smaller and invocations more (at most one per node: ${usd(p.lambdaRequest * 1e6)} per million nodes). Free tiers are ignored.`,
  );
  out();
  out(
    `Prices (us-east-1, list, as of ${p.asOf}; constants in bench/support/prices.ts, sources ${p.sources.map((u) => `<${u}>`).join(', ')}): DynamoDB on-demand ${perMillionPrice(p.dynamodbWriteRequestUnit)} per million write request units and ${perMillionPrice(p.dynamodbReadRequestUnit)} per million read request units; SQS standard ${perMillionPrice(p.sqsRequest)} per million requests (each 64 KB chunk of a payload is one request); Lambda ${perMillionPrice(p.lambdaRequest)} per million requests and $${p.lambdaArmGbSecond} per GB-second on arm64 (first tier).`,
  );
  out();

  return lines;
}

const failingShapes = (e: CostResults): ShapeResult[] => e.shapes.filter((s) => s.perMillion.total > s.target);

export function costSummary(e: CostResults): string {
  const failing = failingShapes(e);
  const figures = e.shapes
    .map(
      (s) =>
        `${s.title} ${usd(s.perMillion.total)} (${times(s.perMillion.total / s.target)} of its ${usd(s.target)}; DynamoDB writes ${pct(s.perMillion.dynamodbWrites, s.perMillion.total)} of it)`,
    )
    .join(', ');
  return `Engine cost per million node executions (≤ ${usd(e.target)} pure, ≤ ${usd(Math.max(...e.shapes.map((s) => s.target)))} queued): ${failing.length ? `**${failing.length} of ${e.shapes.length} shapes FAIL**` : `all ${e.shapes.length} shapes pass`}: ${figures}`;
}

export const costConsoleLines = (e: CostResults): string[] => [
  `Engine cost per million node executions (targets per shape):`,
  ...e.shapes.map((s) => {
    const c = s.perMillion;
    return `  ${s.title.padEnd(34)} ${usd(c.total).padStart(7)}  writes ${usd(c.dynamodbWrites)}, reads ${usd(c.dynamodbReads)}, SQS ${usd(c.sqs)}, Lambda ${usd(c.lambdaRequests + c.lambdaDuration)}  ${c.total <= s.target ? `pass (≤ ${usd(s.target)})` : `FAIL (> ${usd(s.target)})`}  (${num(s.units.write / s.nodesExecuted)} WRU/node)`;
  }),
];

export function costBudget(e: CostResults): string {
  const failing = failingShapes(e).length;
  return `  engine cost   ${failing ? `FAIL (${failing} of ${e.shapes.length} shapes over their target)` : `pass (${e.shapes.length} of ${e.shapes.length})`}`;
}
