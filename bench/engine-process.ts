/**
 * The engine benchmarks' process (`node --import tsx bench/engine-process.ts
 * --out <file> --runs N --listeners N`, spawned by
 * bench/benchmarks/engine.ts): one local stack with counting proxies in
 * front of DynamoDB Local and the SQS emulator, then cost, latency and SSE
 * listeners in that order; the results are written as JSON to `--out`.
 * Handlers are loaded once per process with module-scope clients bound to
 * the endpoints of the stack that first loaded them, which is why this is
 * a process of its own.
 */
import type { EngineResults } from './benchmarks/engine.js';
import { measureEngineCost } from './benchmarks/engine-cost.js';
import { measureLatency } from './benchmarks/latency.js';
import { measureSse, type SseOutcome } from './benchmarks/sse-listeners.js';
import { arg, guardProcess, reportResults } from './support/bench-process.js';
import { startEngineStack } from './support/engine-stack.js';
import { Running } from './support/local-stack.js';
import { functionMemory } from './support/prices.js';
import { dynamodbLocalVersion, installedVersion } from './support/repo.js';
import { isChain, shapes } from './support/workflow-shapes.js';

const running = new Running();

async function measure(runs: number, listeners: number): Promise<EngineResults> {
  const t0 = performance.now();
  try {
    const b = await startEngineStack(running);
    const memory = functionMemory();
    const all = shapes();
    const cost = await measureEngineCost(b, all, runs, memory);
    const latency = await measureLatency(b, all.filter(isChain), runs);
    let sse: SseOutcome;
    try {
      sse = await measureSse(b, { listeners, rate: 5, seconds: 10, memory });
    } catch (error) {
      sse = { measured: false, reason: `the measurement failed: ${(error as Error).message}` };
    }
    return {
      seconds: (performance.now() - t0) / 1000,
      ...cost,
      latency,
      sse,
      workerErrors: [...new Set(b.workerErrors)].slice(0, 5),
      versions: { dynamodbLocal: dynamodbLocalVersion(), fauxqs: installedVersion('fauxqs') ?? 'unknown' },
    };
  } finally {
    await running.stopAll();
  }
}

guardProcess('engine', running, 240_000);
reportResults('engine', measure(Number(arg('--runs') ?? 20), Number(arg('--listeners') ?? 100)));
