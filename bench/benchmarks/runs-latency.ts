import { createHarness, createMachine, observeAgentRun } from '../support/agent-run.js';
import { purposeOf } from '../support/call-purpose.js';
import type { EngineStack } from '../support/engine-stack.js';
import { counts, lineWriter, log, ms, num, times } from '../support/format.js';
import { median, type Spread, spread, tally } from '../support/stats.js';
import { observeRun, QUIET_MS } from '../support/workflow-run.js';
import { createVersion, type Shape, shapes } from '../support/workflow-shapes.js';

/**
 * Section 5.1: how long a v2 run on `local/echo` takes to start and to end,
 * against the v1 inline chain (the engine's 10-node chain of pure nodes) on
 * the same stack, the two kinds of work interleaved one at a time.
 */

export interface LatencyPair {
  /** v1: POST /v1/workflow-requests/run → the first node's `started_at`; v2: POST /v2/runs → its first `run.status: running` event. */
  label: string;
  v1: Spread;
  v2: Spread;
  ratio: { median: number; p95: number };
}

export interface RunsLatencyResult {
  samples: number;
  rows: LatencyPair[];
  /** What else the v2 runs did: answers, POST time, run-task messages sent per run. */
  v2: { statuses: Record<string, number>; postMs: Spread; wakesPerRun: { median: number; max: number }; lookedAgain: number };
  v1: { statuses: Record<string, number>; postMs: Spread };
}

const pair = (label: string, v1: number[], v2: number[]): LatencyPair => {
  const a = spread(v1);
  const b = spread(v2);
  return { label, v1: a, v2: b, ratio: { median: b.median / a.median, p95: b.p95 / a.p95 } };
};

const countsOf = (values: readonly string[]): Record<string, number> => {
  const byValue: Record<string, number> = {};
  for (const value of values) tally(byValue, value);
  return byValue;
};

/**
 * `samples` v1 chain requests and `samples` v2 runs, alternating, each
 * watched until over and quiet (one at a time, so neither queues behind the
 * other), after one unrecorded warm-up of each. Times are server timestamps
 * (node and request items, run events and run item) minus the moment the
 * POST was sent, on this process's clock, which the in-process handlers share.
 */
export async function measureRunsLatency(b: EngineStack, samples: number): Promise<RunsLatencyResult> {
  b.ddb.configure({ sizing: false });
  const chain = shapes().find((s) => s.shape === 'chain') as Shape;
  await createVersion(b.api, chain);
  const [harnessId, machineId] = await Promise.all([createHarness(b.api, { model: 'local/echo' }), createMachine(b.api)]);
  const body = { harness_id: harnessId, machine_id: machineId, input: 'How long does a run take to start and to end?' };
  log(`runs: latency, ${samples} v1 chain requests and ${samples} local/echo runs, interleaved`);
  await observeRun(b, chain);
  await observeAgentRun(b, body);

  const v1Start: number[] = [];
  const v1End: number[] = [];
  const v2Start: number[] = [];
  const v2End: number[] = [];
  const v1Status: string[] = [];
  const v2Status: string[] = [];
  const v1Post: number[] = [];
  const v2Post: number[] = [];
  const wakes: number[] = [];
  let lookedAgain = 0;
  const runTasks = new Set(b.stack.queues.filter((q) => q.definition.name.startsWith('run-tasks-')).map((q) => q.url));
  for (let i = 0; i < samples; i++) {
    const request = await observeRun(b, chain);
    const firstStarted = Math.min(...request.nodes.flatMap((n) => (n.started_at ? [Date.parse(n.started_at)] : [])));
    v1Start.push(firstStarted - request.postAt);
    if (request.completedAt !== undefined) v1End.push(request.completedAt - request.postAt);
    v1Status.push(request.status);
    v1Post.push(request.postMs);

    const run = await observeAgentRun(b, body);
    if (run.runningAt !== undefined) v2Start.push(run.runningAt - run.postAt);
    if (run.completedAt !== undefined && run.status === 'completed') v2End.push(run.completedAt - run.postAt);
    v2Status.push(run.status);
    v2Post.push(run.postMs);
    wakes.push(run.sqs.filter((c) => c.action === 'SendMessage' && runTasks.has(c.queueUrl)).length);
    if (run.ddb.filter((c) => purposeOf(c) === 'get run (GetItem)').length > 1) lookedAgain++;
  }
  return {
    samples,
    rows: [pair('POST → running', v1Start, v2Start), pair('POST → completed', v1End, v2End)],
    v2: { statuses: countsOf(v2Status), postMs: spread(v2Post), wakesPerRun: { median: median(wakes), max: Math.max(...wakes) }, lookedAgain },
    v1: { statuses: countsOf(v1Status), postMs: spread(v1Post) },
  };
}

export function renderRunsLatencySection(L: RunsLatencyResult, section: number): string[] {
  const { lines, out } = lineWriter();
  out(`### ${section}.1 Latency: a run against the v1 inline chain`);
  out();
  out('| From the POST to | v1 inline chain median | p95 | v2 run (`local/echo`) median | p95 | **Median, v2 ÷ v1** | **p95, v2 ÷ v1** |');
  out('|---|---:|---:|---:|---:|---:|---:|');
  for (const r of L.rows) {
    out(
      `| ${r.label === 'POST → running' ? 'running: the first node’s `started_at` (v1), the first `run.status: running` event (v2)' : 'completed: the request’s / the run’s `completed_at`'} | ${ms(r.v1.median)} | ${ms(r.v1.p95)} | ${ms(r.v2.median)} | ${ms(r.v2.p95)} | **${times(r.ratio.median)}** | **${times(r.ratio.p95)}** |`,
    );
  }
  out();
  out(
    `**How measured.** On the section's stack, ${L.samples} requests of the engine's 10-node chain of pure \`transform\` nodes (section 4's shape, run inline after its entry node's queue hop) and ${L.samples} runs of a \`local/echo\` harness on one small machine, alternating one v1 request and one v2 run, each watched until it was over and the service quiet (${QUIET_MS} ms without a call but empty long polls), after one unrecorded warm-up of each. Each time is a server timestamp minus \`Date.now()\` just before the POST was sent; the handlers and pollers run in the bench's process, so both are on one clock, to the millisecond. v1: \`POST /v1/workflow-requests/run\` (requests ended ${counts(L.v1.statuses)}; POST median ${ms(L.v1.postMs.median)}) to the first node's \`started_at\` and to the request's \`completed_at\`. v2: \`POST /v2/runs\` (runs ended ${counts(L.v2.statuses)}; POST median ${ms(L.v2.postMs.median)}) to the \`created_at\` of its first \`run.status: running\` event and to the run's \`completed_at\`. A run on an idle machine is written \`queued\` and \`running\` in its creation transaction (lib/runs/create-run.ts), so "running" is inside the POST, while the v1 request's first node starts in a worker after a queue hop; the run's end needs the queue hop to its worker, the lease, its recorded steps, its harness's instructions and the model turn (lib/runs/agent-loop.ts). The run is woken just before its creation's transaction, so its worker can get the message before the run exists: in ${L.v2.lookedAgain} of ${L.samples} runs the worker read the run more than once (it looks again a few milliseconds later in the same invocation, lib/runs/move-run.ts), and run-task messages per run were median ${num(L.v2.wakesPerRun.median, 0)}, max ${L.v2.wakesPerRun.max} (a second message means the run was still absent after those looks, and costs a second). Absolute times are this machine's, against DynamoDB Local and fauxqs; the ratios are the claim.`,
  );
  out();
  return lines;
}

export const runsLatencySummary = (L: RunsLatencyResult): string =>
  `v2 run latency on \`local/echo\` against the v1 inline chain, same stack, interleaved (median / p95): ${L.rows
    .map(
      (r) => `${r.label} ${ms(r.v2.median)} / ${ms(r.v2.p95)} against ${ms(r.v1.median)} / ${ms(r.v1.p95)} = ${times(r.ratio.median)} / ${times(r.ratio.p95)}`,
    )
    .join('; ')}`;

export const runsLatencyConsoleLines = (L: RunsLatencyResult): string[] => [
  `Run latency, v2 local/echo against the v1 inline chain (${L.samples} each, interleaved):`,
  ...L.rows.map(
    (r) =>
      `  ${r.label.padEnd(18)} v1 ${ms(r.v1.median)} / ${ms(r.v1.p95)}   v2 ${ms(r.v2.median)} / ${ms(r.v2.p95)}   ratio ${times(r.ratio.median)} / ${times(r.ratio.p95)}`,
  ),
];
