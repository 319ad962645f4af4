/**
 * The console benchmark's process (`node --import tsx bench/console-process.ts
 * --out <file> --samples N`, spawned by bench/benchmarks/console.ts): a local
 * stack of its own with 20 runs, Chromium against it; the results are written
 * as JSON to `--out`. A process of its own for the reason
 * bench/engine-process.ts is one.
 */
import { measureConsoleHere } from './benchmarks/console.js';
import { arg, guardProcess, reportResults } from './support/bench-process.js';
import { Running } from './support/local-stack.js';

const running = new Running();
guardProcess('console', running, 180_000);
reportResults('console', measureConsoleHere(Number(arg('--samples') ?? 15), running));
