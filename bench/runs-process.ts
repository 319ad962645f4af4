/**
 * The runs benchmarks' process (`node --import tsx bench/runs-process.ts
 * --out <file> --runs N`, spawned by bench/benchmarks/runs.ts): one local
 * stack with counting proxies in front of DynamoDB Local and the SQS
 * emulator (the engine's, bench/support/engine-stack.ts) and a local MCP
 * server, then latency, cost and the events page in that order; the
 * results are written as JSON to `--out`. A process of its own for the
 * reason bench/engine-process.ts is one: handlers keep the clients of the
 * first stack that loaded them.
 */
import { writeFileSync } from 'node:fs';
import { startMcpServer } from '../test/helpers/mcp-server.js';
import type { RunsResults } from './benchmarks/runs.js';
import { measureRunCost } from './benchmarks/runs-cost.js';
import { measureEventsPage } from './benchmarks/runs-events-page.js';
import { measureRunsLatency } from './benchmarks/runs-latency.js';
import { arg, guardProcess } from './support/bench-process.js';
import { startEngineStack } from './support/engine-stack.js';
import { Running } from './support/local-stack.js';
import { dynamodbLocalVersion, installedVersion } from './support/repo.js';

const running = new Running();

async function measure(runs: number): Promise<RunsResults> {
  const t0 = performance.now();
  // The MCP server of the cost runs listens on 127.0.0.1 over http; the outbound guard reads these on every call.
  process.env.OUTBOUND_ALLOWED_HOSTS = '127.0.0.1';
  process.env.OUTBOUND_ALLOW_INSECURE = 'true';
  try {
    const [b, mcp] = await Promise.all([startEngineStack(running), startMcpServer()]);
    running.add(mcp.stop);
    const latency = await measureRunsLatency(b, runs);
    const cost = await measureRunCost(b, mcp, runs);
    const eventsPage = await measureEventsPage(b, runs);
    return {
      seconds: (performance.now() - t0) / 1000,
      latency,
      cost,
      eventsPage,
      workerErrors: [...new Set(b.workerErrors)].slice(0, 5),
      versions: { dynamodbLocal: dynamodbLocalVersion(), fauxqs: installedVersion('fauxqs') ?? 'unknown' },
    };
  } finally {
    await running.stopAll();
  }
}

guardProcess('runs', running, 240_000);
const out = arg('--out');
measure(Number(arg('--runs') ?? 20)).then(
  (results) => {
    const text = JSON.stringify(results);
    if (out) writeFileSync(out, text);
    else console.log(text);
    process.exit(0);
  },
  (error: unknown) => {
    console.error('[bench] runs failed:', error);
    process.exit(1);
  },
);
