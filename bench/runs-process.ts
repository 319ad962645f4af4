/**
 * The runs benchmarks' process (`node --import tsx bench/runs-process.ts
 * --out <file> --runs N --evaluation-reps N --sections runs,evaluations`,
 * spawned by bench/benchmarks/runs.ts): one local stack with counting
 * proxies in front of DynamoDB Local and the SQS emulator (the engine's,
 * bench/support/engine-stack.ts), then the sections asked for on it: v2
 * runs (latency, cost with a local MCP server, the events page, token deltas, in that
 * order) and evaluations; the results are written as JSON to `--out`. A
 * process of its own for the reason bench/engine-process.ts is one:
 * handlers keep the clients of the first stack that loaded them.
 */
import { startMcpServer } from '../test/helpers/mcp-server.js';
import { measureEvaluations } from './benchmarks/evaluations.js';
import type { RunsProcessResults, RunsSection } from './benchmarks/runs.js';
import { measureRunCost } from './benchmarks/runs-cost.js';
import { measureRunDeltas } from './benchmarks/runs-deltas.js';
import { measureEventsPage } from './benchmarks/runs-events-page.js';
import { measureRunsLatency } from './benchmarks/runs-latency.js';
import { arg, guardProcess, reportResults } from './support/bench-process.js';
import { type EngineStack, startEngineStack } from './support/engine-stack.js';
import { Running } from './support/local-stack.js';
import { dynamodbLocalVersion, installedVersion } from './support/repo.js';

const running = new Running();

/** Section 5 on the stack; its `seconds` count from `t0`, the process's start, the stack's start included. */
async function measureRunsSection(
  b: EngineStack,
  runs: number,
  versions: RunsProcessResults['versions'],
  t0: number,
): Promise<NonNullable<RunsProcessResults['runs']>> {
  // The MCP server of the cost runs listens on 127.0.0.1 over http; the outbound guard reads these on every call.
  process.env.OUTBOUND_ALLOWED_HOSTS = '127.0.0.1';
  process.env.OUTBOUND_ALLOW_INSECURE = 'true';
  const mcp = await startMcpServer();
  running.add(mcp.stop);
  const latency = await measureRunsLatency(b, runs);
  const cost = await measureRunCost(b, mcp, runs);
  const eventsPage = await measureEventsPage(b, runs);
  const deltas = await measureRunDeltas(b, runs);
  return { seconds: (performance.now() - t0) / 1000, latency, cost, eventsPage, deltas, workerErrors: [...new Set(b.workerErrors)].slice(0, 5), versions };
}

async function measure(sections: readonly RunsSection[], runs: number, evaluationReps: number): Promise<RunsProcessResults> {
  const t0 = performance.now();
  try {
    const b = await startEngineStack(running);
    const versions = { dynamodbLocal: dynamodbLocalVersion(), fauxqs: installedVersion('fauxqs') ?? 'unknown' };
    const results: RunsProcessResults = { versions };
    if (sections.includes('runs')) results.runs = await measureRunsSection(b, runs, versions, t0);
    if (sections.includes('evaluations')) results.evaluations = await measureEvaluations(b, evaluationReps, versions);
    return results;
  } finally {
    await running.stopAll();
  }
}

guardProcess('runs', running, 240_000);
const sections = (arg('--sections') ?? 'runs,evaluations').split(',') as RunsSection[];
reportResults('runs', measure(sections, Number(arg('--runs') ?? 20), Number(arg('--evaluation-reps') ?? 5)));
