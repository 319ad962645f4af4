/**
 * `npm run bench`: bundle sizes, whole-process cold-start times against two
 * baselines measured in the same run (sdk-floor, the AWS SDK clients the
 * functions use, bundled as the stack bundles them: the budget; hello-world:
 * context), what the SDK costs a cold start against the hand-written client
 * it replaced, DynamoDB round trips per request, and the workflow engine's
 * cost per million node executions, node-to-child latency and SSE listeners
 * (run in a process of its own), v2 runs' latency, cost and events page,
 * a `run: true` evaluation against the same runs created by a client
 * (another, one stack for both), and the cloud assembly `cdk synth` makes:
 * resources per stack and the cold start of the bundles it deploys. One file
 * per benchmark in bench/benchmarks/; writes docs/benchmarks.md.
 *
 * `npm run bench -- engine` runs only the engine section and prints it,
 * `npm run bench -- runs` only the runs section, `npm run bench -- evaluations`
 * only the evaluations section, `npm run bench -- money` only the money
 * section (metering, billing transactions, activity), `npm run bench --
 * webhooks` only the webhooks section, `npm run bench -- rate`
 * only what the rate limit adds to an authenticated read, `npm run bench -- stack`
 * only the cloud assembly section (resources per stack, the deployed bundles'
 * cold start), `npm run bench -- console` only the console's bytes and its
 * time to the first run list in Chromium, and `npm run bench -- load` only bundle sizes and load times;
 * docs/benchmarks.md is written only by the full run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { bundleSizeBudget, bundleSizeConsoleLines, measureBundleSizes } from './benchmarks/bundle-size.js';
import { consoleBudget, consoleConsoleLines, measureConsole, renderConsoleSection } from './benchmarks/console.js';
import { engineBudget, engineConsoleLines, measureEngine, renderEngineSection } from './benchmarks/engine.js';
import { evaluationsConsoleLines, renderEvaluationsSection } from './benchmarks/evaluations.js';
import { bundleFirstUse, firstUseConsoleLines } from './benchmarks/first-use.js';
import { loadTimeBudget, loadTimeConsoleLines, loadVerdictLines, measureLoadRounds, measureLoadTime } from './benchmarks/load-time.js';
import { measureMoney, moneyBudget, moneyConsoleLines, renderMoneySection } from './benchmarks/money.js';
import {
  bundleOldClient,
  compareOldClient,
  comparisonSummary,
  oldClientBundleList,
  oldClientConsoleLines,
  oldClientSizeLines,
} from './benchmarks/old-client.js';
import { measureRateLimit, rateLimitConsoleLines, renderRateLimitSection } from './benchmarks/rate-limit.js';
import { measureRoundTrips, roundTripBudget, roundTripConsoleLines } from './benchmarks/round-trips.js';
import { measureRuns, renderRunsSection, runsBudget, runsConsoleLines } from './benchmarks/runs.js';
import { pairBundles, renderStackSection, stackBudget, stackConsoleLines, stackLoadPlan, stackResults } from './benchmarks/stack.js';
import { renderWebhooksSection, webhooksConsoleLines } from './benchmarks/webhooks.js';
import { COMMAND, renderReport } from './report.js';
import { synthesizeAssembly } from './support/assembly.js';
import { stopBenchProcesses } from './support/bench-process.js';
import { codeRevision, inScratchDir, REPO_ROOT } from './support/repo.js';

const REPORT = join(REPO_ROOT, 'docs', 'benchmarks.md');

function positiveInt(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/** Fewer samples than this make a median too jumpy to compare against. */
const MIN_LOAD_RUNS = 11;
// 20, not more: each round is ~85 fresh processes (every route and worker, the baselines, the first-use and old-client bundles, section 9's NODE_OPTIONS context and any deployed bundle not byte-identical to the bench's), and the whole bench must stay under 5 minutes.
const LOAD_RUNS = Math.max(MIN_LOAD_RUNS, positiveInt(process.env.BENCH_LOAD_RUNS, 20));
const REQUESTS = positiveInt(process.env.BENCH_REQUESTS, 20);
/** Workflow requests per shape for the engine's cost and latency runs, and SSE listeners. */
const ENGINE_RUNS = positiveInt(process.env.BENCH_ENGINE_RUNS, 20);
const SSE_LISTENERS = positiveInt(process.env.BENCH_SSE_LISTENERS, 100);
/** Samples of each kind in the runs section: v1 requests and v2 runs for latency, cost runs, requests per events page. */
const RUNS_SAMPLES = positiveInt(process.env.BENCH_RUNS_SAMPLES, ENGINE_RUNS);
/** Timed repetitions of the evaluation and of its client-created runs (each ~30 runs in a row, a few seconds): enough for a median, and the whole bench stays within its time. */
const EVALUATION_REPS = positiveInt(process.env.BENCH_EVALUATION_REPS, 5);
const ARGS = process.argv.slice(2);
/** Page loads of the console timed to its run list. */
const CONSOLE_SAMPLES = positiveInt(process.env.BENCH_CONSOLE_SAMPLES, 15);
const MODE =
  (['engine', 'runs', 'evaluations', 'load', 'rate', 'money', 'webhooks', 'stack', 'console'] as const).find((mode) => ARGS.includes(mode)) ?? 'full';

const print = (lines: string[]) => console.log(lines.join('\n'));

async function engineOnly(): Promise<void> {
  const engine = await inScratchDir('engine-', (work) => measureEngine(work, ENGINE_RUNS, SSE_LISTENERS));
  console.log(`\n${renderEngineSection(engine, 4).join('\n')}`);
  print(engineConsoleLines(engine));
  console.log(`\n(Engine section only: docs/benchmarks.md is written by the full \`${COMMAND}\`.)`);
}

async function runsOnly(): Promise<void> {
  const { runs } = await inScratchDir('runs-', (work) => measureRuns(work, ['runs'], RUNS_SAMPLES, EVALUATION_REPS));
  if (!runs) throw new Error('bench/runs-process.ts returned no runs section');
  console.log(`\n${renderRunsSection(runs, 5).join('\n')}`);
  print(runsConsoleLines(runs));
  console.log(`\n(Runs section only: docs/benchmarks.md is written by the full \`${COMMAND}\`.)`);
}

async function evaluationsOnly(): Promise<void> {
  const { evaluations } = await inScratchDir('evaluations-', (work) => measureRuns(work, ['evaluations'], RUNS_SAMPLES, EVALUATION_REPS));
  if (!evaluations) throw new Error('bench/runs-process.ts returned no evaluations section');
  console.log(`\n${renderEvaluationsSection(evaluations, 6).join('\n')}`);
  print(evaluationsConsoleLines(evaluations));
  console.log(`\n(Evaluations section only: docs/benchmarks.md is written by the full \`${COMMAND}\`.)`);
}

async function rateOnly(): Promise<void> {
  const rate = await measureRateLimit(REQUESTS * 3);
  console.log(`\n${renderRateLimitSection(rate).join('\n')}`);
  print(rateLimitConsoleLines(rate));
  console.log(`\n(Rate limit section only: docs/benchmarks.md is written by the full \`${COMMAND}\`.)`);
}

async function moneyOnly(): Promise<void> {
  const results = await inScratchDir('money-', (work) => measureMoney(work, ['money'], RUNS_SAMPLES));
  if (!results.money) throw new Error('bench/money-process.ts returned no money section');
  console.log(`\n${renderMoneySection(results, 7).join('\n')}`);
  print(moneyConsoleLines(results.money));
  print(['\nBudget:', moneyBudget(results.money)]);
  console.log(`\n(Money section only, ${results.seconds.toFixed(0)} s in its process: docs/benchmarks.md is written by the full \`${COMMAND}\`.)`);
}

async function webhooksOnly(): Promise<void> {
  const results = await inScratchDir('webhooks-', (work) => measureMoney(work, ['webhooks'], RUNS_SAMPLES));
  if (!results.webhooks) throw new Error('bench/money-process.ts returned no webhooks section');
  console.log(`\n${renderWebhooksSection(results.webhooks, 8, results.seconds).join('\n')}`);
  print(webhooksConsoleLines(results.webhooks));
  console.log(`\n(Webhooks section only, ${results.seconds.toFixed(0)} s in its process: docs/benchmarks.md is written by the full \`${COMMAND}\`.)`);
}

/** Section 9 on its own: the bench's bundles (to compare), the synthesis, and load rounds of the assembly's bundles with both baselines. */
async function stackOnly(): Promise<void> {
  const stack = await inScratchDir('stack-', async (work) => {
    const sizes = await measureBundleSizes(work);
    const paired = pairBundles(await synthesizeAssembly(work), sizes);
    const plan = stackLoadPlan(paired, sizes.floor, false);
    const t0 = performance.now();
    const rounds = measureLoadRounds(plan.extra, sizes, LOAD_RUNS, work);
    return stackResults(paired, plan, rounds, false, (performance.now() - t0) / 1000);
  });
  console.log(`\n${renderStackSection(stack, 9).join('\n')}`);
  print(stackConsoleLines(stack));
  print(['\nBudgets:', ...stackBudget(stack)]);
  console.log(`\n(Stack section only: docs/benchmarks.md is written by the full \`${COMMAND}\`.)`);
}

async function consoleOnly(): Promise<void> {
  const results = await inScratchDir('console-', (work) => measureConsole(work, CONSOLE_SAMPLES));
  console.log(`\n${renderConsoleSection(results).join('\n')}`);
  print(consoleConsoleLines(results));
  console.log(`\n(Console section only: docs/benchmarks.md is written by the full \`${COMMAND}\`.)`);
}

async function run(work: string): Promise<void> {
  const started = new Date();
  const revision = codeRevision();
  const t0 = performance.now();
  const sizes = await measureBundleSizes(work);
  const firstUse = await bundleFirstUse(work);
  const old = await bundleOldClient(work);
  // The assembly before the load rounds: its bundles byte-identical to the bench's are loaded from it, once, for sections 2 and 9.
  const assembly = MODE === 'load' ? undefined : pairBundles(await synthesizeAssembly(work), sizes);
  const plan = assembly && stackLoadPlan(assembly, sizes.floor, true);
  const load = measureLoadTime(sizes, [...firstUse, ...oldClientBundleList(old)], LOAD_RUNS, work, plan ?? {});
  const stack = assembly && plan ? stackResults(assembly, plan, load, true) : undefined;
  const comparison = compareOldClient(old, load);
  const trips = MODE === 'load' ? [] : await measureRoundTrips(REQUESTS);
  const rate = MODE === 'load' ? undefined : await measureRateLimit(REQUESTS * 3);
  const engine = MODE === 'load' ? undefined : await measureEngine(work, ENGINE_RUNS, SSE_LISTENERS);
  const { runs, evaluations } = MODE === 'load' ? {} : await measureRuns(work, ['runs', 'evaluations'], RUNS_SAMPLES, EVALUATION_REPS);
  const money = MODE === 'load' ? undefined : await measureMoney(work, ['money', 'webhooks'], RUNS_SAMPLES);
  const consolePages = MODE === 'load' ? undefined : await measureConsole(work, CONSOLE_SAMPLES);

  const seconds = (performance.now() - t0) / 1000;
  if (engine && runs && evaluations && rate && money?.money && money.webhooks && stack && consolePages) {
    mkdirSync(dirname(REPORT), { recursive: true });
    writeFileSync(
      REPORT,
      renderReport({
        started,
        seconds,
        revision,
        requestsPerCase: REQUESTS,
        sseListeners: SSE_LISTENERS,
        sizes,
        load,
        comparison,
        trips,
        rate,
        engine,
        runs,
        evaluations,
        money,
        stack,
        consolePages,
      }),
    );
  }

  print([...bundleSizeConsoleLines(sizes), ...oldClientSizeLines(old)]);
  print([...loadTimeConsoleLines(load), ...firstUseConsoleLines(load), ...oldClientConsoleLines(comparison), ...loadVerdictLines(load)]);
  console.log(`  ${comparisonSummary(comparison, load)}`);
  if (!engine || !runs || !evaluations || !rate || !money?.money || !money.webhooks || !stack || !consolePages) {
    console.log(`\n(Bundle sizes and load times only: docs/benchmarks.md is written by the full \`${COMMAND}\`.)`);
    return;
  }
  print(roundTripConsoleLines(trips));
  print(rateLimitConsoleLines(rate));
  print([
    '\nBudgets:',
    bundleSizeBudget(sizes),
    loadTimeBudget(load),
    roundTripBudget(trips),
    engineBudget(engine),
    runsBudget(runs),
    moneyBudget(money.money),
    ...stackBudget(stack),
    consoleBudget(consolePages),
  ]);
  console.log(`\n${engineConsoleLines(engine).join('\n')}`);
  console.log(`\n${runsConsoleLines(runs).join('\n')}`);
  console.log(`\n${evaluationsConsoleLines(evaluations).join('\n')}`);
  console.log(`\n${moneyConsoleLines(money.money).join('\n')}`);
  console.log(`\n${webhooksConsoleLines(money.webhooks).join('\n')}`);
  print(stackConsoleLines(stack));
  print(consoleConsoleLines(consolePages));
  console.log(`\nWrote ${REPORT} in ${seconds.toFixed(0)} s.`);
}

// A hang guard, not a budget: the full run takes about 10 minutes here (the console's Chromium loads and the token-delta runs included).
const WATCHDOG_MINUTES = 16;
const watchdog = setTimeout(() => {
  console.error(`[bench] still running after ${WATCHDOG_MINUTES} minutes; giving up.`);
  stopBenchProcesses();
  setTimeout(() => process.exit(2), 5_000).unref();
}, WATCHDOG_MINUTES * 60_000);
watchdog.unref();

const only = {
  engine: engineOnly,
  runs: runsOnly,
  evaluations: evaluationsOnly,
  rate: rateOnly,
  money: moneyOnly,
  webhooks: webhooksOnly,
  stack: stackOnly,
  console: consoleOnly,
} as const;
(MODE === 'full' || MODE === 'load' ? inScratchDir('run-', run) : only[MODE]()).then(
  () => process.exit(0),
  (error: unknown) => {
    console.error('[bench] failed:', error);
    process.exit(1);
  },
);
