/**
 * `npm run bench`: bundle sizes, whole-process cold-start times against two
 * baselines measured in the same run (sdk-floor, the AWS SDK clients the
 * functions use, bundled as the stack bundles them: the budget; hello-world:
 * context), what the SDK costs a cold start against the hand-written client
 * it replaced (bench/old-client.ts), DynamoDB round trips per request, and
 * the workflow engine's cost per million node executions, node-to-child
 * latency and SSE listeners (bench/engine.ts, run in a process of its own).
 * Writes docs/benchmarks.md.
 *
 * `npm run bench -- engine` runs only the engine section and prints it, and
 * `npm run bench -- load` only bundle sizes and load times; docs/benchmarks.md
 * is written only by the full run.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { arch, cpus, platform, release, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { QUEUES } from '#app/queues.js';
import { ROUTES } from '#app/routes.js';
import { ESM_REQUIRE_BANNER, EXTERNAL_MODULES } from '../infra/bundling.js';
import {
  type BundleResult,
  type BundleTarget,
  bundle,
  esbuildVersion,
  FIRST_USE,
  isAwsSdkPackage,
  writeFirstUseEntry,
  writeHelloWorldEntry,
  writeSdkFloorEntry,
} from './bundle.js';
import type { EngineResults } from './engine.js';
import { engineConsoleLines, engineSummaryLines, renderEngineSection } from './engine-report.js';
import { type LoadStats, measureLoadTimes, nodeModulesFootprint, resourceKind } from './load-time.js';
import {
  OLD_CLIENT,
  OLD_CLIENT_COMMIT,
  OLD_FUNCTION,
  type OldClientSources,
  oldFunctionName,
  ownCodeDiff,
  prepareOldClient,
  versionDrift,
} from './old-client.js';
import { measureRoundTrips, type RoundTripResult } from './round-trips.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const REPORT = join(REPO_ROOT, 'docs', 'benchmarks.md');
const COMMAND = 'npm run bench';

const SIZE_BUDGET_KB = 750;
/** Whole-process median over sdk-floor's, same run. */
const LOAD_RATIO_BUDGET = 1.4;
/** Fewer samples than this make a median too jumpy to compare against. */
const MIN_LOAD_RUNS = 11;
// 20, not more: each round is ~40 fresh processes (every route and worker, the baselines, the first-use and old-client bundles), and the whole bench must stay under 5 minutes.
const LOAD_RUNS = Math.max(MIN_LOAD_RUNS, positiveInt(process.env.BENCH_LOAD_RUNS, 20));
const REQUESTS = positiveInt(process.env.BENCH_REQUESTS, 20);
/** Workflow requests per shape for the engine's cost and latency runs, and SSE listeners. */
const ENGINE_RUNS = positiveInt(process.env.BENCH_ENGINE_RUNS, 20);
const SSE_LISTENERS = positiveInt(process.env.BENCH_SSE_LISTENERS, 100);
const ENGINE_ONLY = process.argv.slice(2).includes('engine');
const LOAD_ONLY = process.argv.slice(2).includes('load');

const HELLO = 'hello-world';
const SDK_FLOOR = 'sdk-floor';

function positiveInt(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

const kb = (bytes: number): number => bytes / 1024;
const fmtKb = (bytes: number): string => kb(bytes).toFixed(1);
const fmtMs = (ms: number): string => ms.toFixed(1);
const fmtX = (ratio: number): string => `${ratio.toFixed(2)}×`;
const mark = (pass: boolean): string => (pass ? 'pass' : '**FAIL**');
const log = (line: string) => console.log(`[bench] ${line}`);
const names = (list: Array<{ bundle: BundleResult }>): string => list.map((r) => r.bundle.name).join(', ');
/** A difference in milliseconds, in words: `12.3 ms more` / `1.2 ms less`. */
const moreMs = (ms: number): string => `${fmtMs(Math.abs(ms))} ms ${ms >= 0 ? 'more' : 'less'}`;

function sdkVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', '@aws-sdk', 'client-dynamodb', 'package.json'), 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** The code measured: the commit, and how many files differ from it (others may be editing while the bench runs). */
function codeRevision(): string {
  const git = (args: string[]) => spawnSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' });
  const head = git(['rev-parse', '--short', 'HEAD']);
  if (head.status !== 0) return 'not a git checkout';
  const dirty = git(['status', '--porcelain', '--', 'lib', 'functions', 'infra', 'bench']).stdout.split('\n').filter(Boolean).length;
  return `commit ${head.stdout.trim()}${dirty ? ` plus ${dirty} uncommitted file${dirty === 1 ? '' : 's'} under lib/, functions/, infra/ or bench/ at the start of the run` : ''}`;
}

function targets(): BundleTarget[] {
  const list: BundleTarget[] = ROUTES.map((r) => ({ name: r.id, kind: 'route', entry: resolve(REPO_ROOT, r.entry) }));
  for (const q of QUEUES) {
    list.push({ name: `worker:${q.name}`, kind: 'worker', entry: resolve(REPO_ROOT, q.worker) });
    if (q.deadLetterWorker) list.push({ name: `dlq-worker:${q.name}`, kind: 'worker', entry: resolve(REPO_ROOT, q.deadLetterWorker) });
  }
  return list;
}

function entryOf(name: string): string {
  const route = ROUTES.find((r) => r.id === name);
  if (route) return route.entry;
  const queue = QUEUES.find((q) => name === `worker:${q.name}` || name === `dlq-worker:${q.name}`);
  if (queue) return name.startsWith('dlq-') ? (queue.deadLetterWorker ?? '') : queue.worker;
  return '(inline, see below)';
}

/** The AWS SDK in a bundle: the clients it evaluates at init, those only an `import()` reaches, and any left to the runtime. */
const short = (list: string[]) => list.map((p) => p.replace('@aws-sdk/', '')).join(', ');
const sdkColumn = (b: BundleResult): string => {
  const runtime = [...b.externalImports, ...b.lazyExternalImports].filter((p) => p.startsWith('@aws-sdk/'));
  return [
    b.sdkClientsAtInit.length ? short(b.sdkClientsAtInit) : 'none at init',
    b.sdkClientsOnFirstUse.length ? `(${short(b.sdkClientsOnFirstUse)} on first use)` : '',
    runtime.length ? `(from the runtime: ${short(runtime)})` : '',
  ]
    .filter(Boolean)
    .join(' ');
};

interface LoadRow {
  bundle: BundleResult;
  load: LoadStats;
  /** Whole-process median over sdk-floor's: the budgeted figure. */
  vsFloor: number;
  /** Whole-process median over hello-world's: reported beside it. */
  vsHello: number;
  pass: boolean;
}

/** The SDK against the hand-written client it replaced, measured in the same rounds (bench/old-client.ts). */
interface OldClientComparison {
  sources: OldClientSources;
  /** The old clients alone, at module scope. */
  oldClient: LoadRow;
  /** WorkflowsGet as it was at the old commit. */
  oldFunction: LoadRow;
  /** WorkflowsGet now. */
  newFunction: LoadRow;
}

interface LoadAnalysis {
  functions: LoadRow[];
  hello: LoadRow;
  floor: LoadRow;
  /** What functions load on first use, measured as bundles of their own (context). */
  firstUse: LoadRow[];
  failing: LoadRow[];
  /** Files (and their bytes on disk) that loading sdk-floor reads from node_modules: none when nothing is external. */
  floorFootprint: { files: number; bytes: number };
  /** The old-client comparison, or why it could not be made. */
  comparison: OldClientComparison | { skipped: string };
}

function analyse(
  functions: BundleResult[],
  hello: BundleResult,
  floor: BundleResult,
  firstUse: BundleResult[],
  old: { sources: OldClientSources; client: BundleResult; fn: BundleResult } | { skipped: string },
  loads: LoadStats[],
  floorFootprint: LoadAnalysis['floorFootprint'],
): LoadAnalysis {
  const loadOf = (b: BundleResult) => loads.find((l) => l.name === b.name)!;
  const helloMs = loadOf(hello).process.median;
  const floorMs = loadOf(floor).process.median;
  const row = (b: BundleResult): LoadRow => {
    const load = loadOf(b);
    const vsFloor = load.process.median / floorMs;
    return { bundle: b, load, vsFloor, vsHello: load.process.median / helloMs, pass: vsFloor <= LOAD_RATIO_BUDGET };
  };
  const rows = functions.map(row);
  const newFunction = rows.find((r) => r.bundle.name === OLD_FUNCTION.route);
  return {
    functions: rows,
    hello: row(hello),
    floor: row(floor),
    firstUse: firstUse.map(row),
    failing: rows.filter((r) => !r.pass),
    floorFootprint,
    comparison:
      'skipped' in old
        ? old
        : newFunction
          ? { sources: old.sources, oldClient: row(old.client), oldFunction: row(old.fn), newFunction }
          : { skipped: `${OLD_FUNCTION.route} is no longer a route` },
  };
}

function loadVerdict(a: LoadAnalysis): string {
  const n = a.functions.length;
  const rule = `whole-process median ≤ ${LOAD_RATIO_BUDGET}× ${SDK_FLOOR}`;
  const worstOf = (rows: LoadRow[]) => rows.reduce((w, r) => (r.vsFloor > w.vsFloor ? r : w));
  if (a.failing.length === 0) {
    const worst = worstOf(a.functions);
    return `All ${n} functions pass the load-time budget (${rule}); the slowest, ${worst.bundle.name}, is ${fmtX(worst.vsFloor)} ${SDK_FLOOR} (${fmtX(worst.vsHello)} ${HELLO}).`;
  }
  const worst = worstOf(a.failing);
  return `${a.failing.length} of ${n} functions FAIL the load-time budget (${rule}): ${names(a.failing)}; worst ${worst.bundle.name} at ${fmtX(worst.vsFloor)} ${SDK_FLOOR} (${fmtX(worst.vsHello)} ${HELLO}).`;
}

/** Functions whose budgeted ratio is within 5 % of the budget: another run may put them on the other side. */
function borderline(a: LoadAnalysis): string | undefined {
  const near = a.functions.filter((r) => Math.abs(r.vsFloor - LOAD_RATIO_BUDGET) / LOAD_RATIO_BUDGET <= 0.05);
  if (!near.length) return undefined;
  return `Borderline: ${near.map((r) => `${r.bundle.name} (${fmtX(r.vsFloor)}, ${r.pass ? 'pass' : 'FAIL'})`).join(', ')} ${near.length === 1 ? 'is' : 'are'} within 5 % of the ${LOAD_RATIO_BUDGET}× budget, so another run may land on the other side; the mark is what this run measured.`;
}

const sdkKb = (b: BundleResult): string => fmtKb(b.sdkBytes);
const largestOwn = (b: BundleResult, n: number): string =>
  b.contributors
    .filter((c) => !isAwsSdkPackage(c.name))
    .slice(0, n)
    .map((c) => `${c.name} ${fmtKb(c.bytes)} KB`)
    .join(', ');

/** One paragraph: what the load time is made of. */
function dominance(a: LoadAnalysis): string {
  const H = a.hello.load.process.median;
  const S = a.floor.load.process.median;
  const f = a.floor.bundle;
  const withSdk = a.functions.filter((r) => r.bundle.sdkClientsAtInit.length > 0);
  const withoutSdk = a.functions.filter((r) => r.bundle.sdkClientsAtInit.length === 0);
  const withSqs = withSdk.filter((r) => r.bundle.sdkClientsAtInit.includes('@aws-sdk/client-sqs'));
  const lazy = a.functions.filter((r) => r.bundle.sdkClientsOnFirstUse.length > 0);
  const slowest = [...a.functions].sort((x, y) => y.vsFloor - x.vsFloor).slice(0, 3);
  const fastestSdk = withSdk.length ? withSdk.reduce((m, r) => (r.vsFloor < m.vsFloor ? r : m)) : undefined;
  const parts: string[] = [];
  parts.push(
    `${withSdk.length} of ${a.functions.length} functions bundle the AWS SDK and evaluate its DynamoDB client modules at init (built by lib/platform/aws/clients.ts, which the repositories and the node queue import statically)${withSqs.length ? `, ${withSqs.length === withSdk.length ? 'all' : `${withSqs.length}`} of them the SQS client's too` : ''}${withoutSdk.length ? `; ${names(withoutSdk)} evaluate${withoutSdk.length === 1 ? 's' : ''} no SDK client at init` : ''}${lazy.length ? `. ${names(lazy)} also bundle${lazy.length === 1 ? 's' : ''} ${[...new Set(lazy.flatMap((r) => r.bundle.sdkClientsOnFirstUse))].join(', ')}, reached only through \`import()\`: parsed with the bundle, evaluated on the first call that needs it` : ''}.`,
  );
  parts.push(
    `${SDK_FLOOR}, those two clients and nothing else, is a ${fmtKb(f.bytes)} KB bundle (${fmtKb(f.sdkBytes)} KB of it the SDK's packages; loading it reads ${a.floorFootprint.files} file${a.floorFootprint.files === 1 ? '' : 's'} from node_modules) and takes ${fmtMs(S)} ms from spawn to exit, ${fmtX(a.floor.vsHello)} ${HELLO}'s ${fmtMs(H)} ms: that is what any function using the SDK starts from, and why the budget is a multiple of it rather than of ${HELLO}. A function's ratio to ${SDK_FLOOR} is therefore what its own code adds on top of the SDK: parsing its bundle (code reached only through \`import()\` is parsed too, e.g. JSONata's 80 KB) and evaluating its top level: zod and the request schemas built at module scope, middy, the Powertools modules it uses (idempotency and its JMESPath on v2 writes).`,
  );
  if (fastestSdk) parts.push(`The lightest function with the SDK, ${fastestSdk.bundle.name}, is ${fmtX(fastestSdk.vsFloor)} ${SDK_FLOOR}.`);
  parts.push(
    `The slowest are ${slowest.map((r) => `${r.bundle.name} (${fmtX(r.vsFloor)} ${SDK_FLOOR}, ${fmtX(r.vsHello)} ${HELLO}; ${fmtKb(r.bundle.bytes)} KB, of which SDK ${sdkKb(r.bundle)} KB; largest other parts ${largestOwn(r.bundle, 3)})`).join(', ')}.`,
  );
  return `**What the load time is made of.** ${parts.join(' ')}`;
}

/** The deferred loads: what each adds to the first invocation that needs it. */
function firstUseLines(a: LoadAnalysis): string[] {
  const H = a.hello.load.process.median;
  const baseOf = (item: (typeof FIRST_USE)[number]) => (item.base === SDK_FLOOR ? a.floor : a.hello);
  return [
    `**Loaded on first use, not at init.** A function evaluates at init what every invocation needs, and on first use what only some do. What each deferred load adds to the first invocation that needs it, measured as a bundle of its own that does the same at module scope (whole-process median minus its base's, same run; the base is ${SDK_FLOOR} where the function has the SDK's core loaded already, so only what the deferred client adds on top counts; the code is in the function's bundle either way, so reading and pre-parsing it is paid at init):`,
    '',
    `| Deferred load | Functions | When | Base | Adds (ms) | As a multiple of ${HELLO} |`,
    '|---|---|---|---|---:|---:|',
    ...a.firstUse.map((r) => {
      const item = FIRST_USE.find((f) => f.name === r.bundle.name)!;
      const adds = r.load.process.median - baseOf(item).load.process.median;
      return `| ${item.name.replace('first-use:', '')} | ${item.who} | ${item.trigger} | ${item.base} | ${fmtMs(adds)} | ${fmtX(adds / H)} |`;
    }),
  ];
}

/** The SDK against the hand-written client it replaced: one paragraph and a table, or why it was not measured. */
function comparisonLines(a: LoadAnalysis): string[] {
  const c = a.comparison;
  const title = `**What the SDK costs a cold start against the hand-written client it replaced.**`;
  if ('skipped' in c) return [`${title} Not measured in this run: ${c.skipped}.`];
  const S = a.floor;
  const O = c.oldClient;
  const d = S.load.process.median - O.load.process.median;
  const fd = c.newFunction.load.process.median - c.oldFunction.load.process.median;
  const short = c.sources.commit.slice(0, 7);
  const diff = ownCodeDiff(REPO_ROOT, c.sources, c.oldFunction.bundle.ownFiles, c.newFunction.bundle.ownFiles);
  const drift = versionDrift(
    REPO_ROOT,
    c.sources,
    [...c.oldClient.bundle.contributors, ...c.oldFunction.bundle.contributors].map((p) => p.name),
  );
  const driftText = drift.length
    ? `which hold the versions ${short} locked except ${drift.map((p) => `${p.name} (${p.installed ?? 'not installed'}; ${short} locked ${p.locked ?? 'none'})`).join(', ')}`
    : `which hold, for every package in these two bundles, the version ${short}'s package-lock.json locked`;
  const list = (files: string[]) => files.map((f) => `\`${f}\``).join(', ');
  const diffText =
    diff.onlyOld.length + diff.onlyNew.length + diff.changed.length === 0
      ? 'The two bundles contain the same repository code, unchanged.'
      : `Of this repository's code the two bundles contain, ${[
          diff.onlyOld.length ? `only the old one has ${list(diff.onlyOld)}` : '',
          diff.onlyNew.length ? `only the new one ${list(diff.onlyNew)}` : '',
          diff.changed.length ? `${list(diff.changed)} changed` : '',
        ]
          .filter(Boolean)
          .join('; ')}; every other file is the same.`;
  const row = (label: string, what: string, r: LoadRow) =>
    `| ${label} | ${what} | ${fmtKb(r.bundle.bytes)} | ${fmtKb(r.bundle.gzipBytes)} | ${fmtKb(r.bundle.sdkBytes)} | ${fmtMs(r.load.process.median)} | ${fmtMs(r.load.process.min)} / ${fmtMs(r.load.process.max)} | ${fmtX(r.vsHello)} | ${fmtX(r.vsFloor)} | ${fmtMs(r.load.importOnly.median)} |`;
  return [
    `${title} Until ${short} the functions reached DynamoDB and SQS through lib/aws/json-client.ts (the services' JSON protocol, one SigV4-signed \`fetch\` per call, signed by a small signing package) and lib/data/document-db.ts (marshalling with \`@aws-sdk/util-dynamodb\`). Measured in the same rounds as everything above:`,
    '',
    `- The clients alone: ${SDK_FLOOR} takes ${fmtMs(S.load.process.median)} ms (${fmtX(S.vsHello)} ${HELLO}, ${fmtKb(S.bundle.bytes)} KB) against ${OLD_CLIENT}'s ${fmtMs(O.load.process.median)} ms (${fmtX(O.vsHello)} ${HELLO}, ${fmtKb(O.bundle.bytes)} KB): the SDK's clients take **${moreMs(d)}** per cold start, **${fmtX(S.load.process.median / O.load.process.median)}** the old client's whole-process time (import alone: ${fmtMs(S.load.importOnly.median)} ms against ${fmtMs(O.load.importOnly.median)} ms), and ${fmtKb(S.bundle.bytes - O.bundle.bytes)} KB more bundle.`,
    `- Function to function: ${OLD_FUNCTION.route} (\`${OLD_FUNCTION.entry}\`) now takes ${fmtMs(c.newFunction.load.process.median)} ms (${fmtX(c.newFunction.vsHello)} ${HELLO}, ${fmtKb(c.newFunction.bundle.bytes)} KB) against ${fmtMs(c.oldFunction.load.process.median)} ms (${fmtX(c.oldFunction.vsHello)} ${HELLO}, ${fmtKb(c.oldFunction.bundle.bytes)} KB) as it was at ${short}: **${moreMs(fd)}**, **${fmtX(c.newFunction.load.process.median / c.oldFunction.load.process.median)}** its old cold start (${fmtX(c.newFunction.vsFloor)} ${SDK_FLOOR} now, ${fmtX(c.oldFunction.vsFloor)} then). ${diffText}`,
    '',
    `| Bundle | What | KB | gzip KB | AWS SDK KB | Whole process median ms | Min / max ms | Ratio to ${HELLO} | Ratio to ${SDK_FLOOR} | Import-only median ms |`,
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    row(
      OLD_CLIENT,
      `${short}'s DynamoDB document client (lib/data/client.ts \`createDocumentDb()\`) and SQS client (\`jsonClient\` with lib/engine/node-queue.ts's options), built at module scope`,
      O,
    ),
    row(SDK_FLOOR, "today's `createDynamoDb()` and `createSqs()` (lib/platform/aws/clients.ts), built at module scope", S),
    row(oldFunctionName, `\`${OLD_FUNCTION.entry}\` at ${short}`, c.oldFunction),
    row(OLD_FUNCTION.route, `\`${OLD_FUNCTION.entry}\` now`, c.newFunction),
    '',
    `How: the old sources are extracted from git at bench time (\`git archive ${short} lib functions\` into the run's scratch directory under \`.bench/\`, read-only; no worktree is registered, so an interrupted run leaves nothing behind in .git) and bundled exactly as above, with today's externals (${EXTERNAL_MODULES.length ? EXTERNAL_MODULES.map((m) => `\`${m}\``).join(', ') : 'none'}). Everything they import resolves from this checkout's node_modules, ${driftText}, except the signing package, no longer a dependency: version ${c.sources.signer.version}, as ${short}'s package-lock.json names it, taken from ${c.sources.signer.from} and checked against that lock's integrity hash. "AWS SDK KB" is as in section 1 (for ${OLD_CLIENT}, \`@aws-sdk/util-dynamodb\`, the marshalling).`,
  ];
}

/** One line for the summary and the console. */
function comparisonSummary(a: LoadAnalysis): string {
  const c = a.comparison;
  if ('skipped' in c) return `SDK against the hand-written client it replaced: not measured (${c.skipped}).`;
  const S = a.floor.load.process.median;
  const O = c.oldClient.load.process.median;
  const N = c.newFunction.load.process.median;
  const P = c.oldFunction.load.process.median;
  return `SDK against the hand-written JSON client it replaced (${c.sources.commit.slice(0, 7)}): the clients alone, ${SDK_FLOOR} ${fmtKb(a.floor.bundle.bytes)} KB, ${fmtX(a.floor.vsHello)} ${HELLO} against ${OLD_CLIENT} ${fmtKb(c.oldClient.bundle.bytes)} KB, ${fmtX(c.oldClient.vsHello)}: +${fmtMs(S - O)} ms median, ${fmtX(S / O)}; ${OLD_FUNCTION.route} now against then: ${fmtKb(c.newFunction.bundle.bytes)} KB against ${fmtKb(c.oldFunction.bundle.bytes)} KB, +${fmtMs(N - P)} ms, ${fmtX(N / P)}; see section 2.`;
}

function renderReport(input: {
  started: Date;
  seconds: number;
  bundles: BundleResult[];
  hello: BundleResult;
  floor: BundleResult;
  analysis: LoadAnalysis;
  trips: RoundTripResult[];
  engine: EngineResults;
  revision: string;
}): string {
  const { bundles, hello, floor, analysis: a, trips, engine } = input;
  const cpu = cpus();
  const lines: string[] = [];
  const out = (s = '') => lines.push(s);
  const sizeFailing = bundles.filter((b) => kb(b.bytes) > SIZE_BUDGET_KB);
  const tripsFailing = trips.filter((t) => !t.pass);
  const largest = bundles.reduce((m, b) => (b.bytes > m.bytes ? b : m));

  out('# Benchmarks');
  out();
  out(
    `Generated by \`${COMMAND}\` (bench/run.ts) on ${input.started.toISOString()}; the run took ${input.seconds.toFixed(0)} s. Do not edit by hand: rerun the command.`,
  );
  out();
  out(
    `- Machine: ${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}${cpu[0]?.speed ? ` (${cpu[0].speed} MHz)` : ''}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${platform()} ${release()} ${arch()}`,
  );
  out(
    `- Node ${process.version} (the Lambda functions run on Node 22; bundles target node22), esbuild ${esbuildVersion}, AWS SDK (\`@aws-sdk/client-dynamodb\`) ${sdkVersion()}, bundled from node_modules`,
  );
  out(`- Code: ${input.revision}`);
  out(
    `- Load-time samples per bundle: ${LOAD_RUNS}; requests per round-trip case: ${REQUESTS}; workflow requests per engine shape: ${engine.runsPerShape}; SSE listeners: ${SSE_LISTENERS}`,
  );
  out();
  out(
    "Machines are noisy and this one is not Lambda. Absolute milliseconds are context only; the claims are the byte counts, the round-trip counts, load-time and latency **ratios** against baselines measured in the same run, and the engine's counted request units priced at AWS list prices.",
  );
  out();
  out('## Summary');
  out();
  out(
    `- Bundle size (≤ ${SIZE_BUDGET_KB} KB): ${sizeFailing.length ? `**${sizeFailing.length} of ${bundles.length} functions FAIL** (${sizeFailing.map((b) => `${b.name} ${fmtKb(b.bytes)} KB`).join(', ')})` : `all ${bundles.length} functions pass; the largest, ${largest.name}, is ${fmtKb(largest.bytes)} KB`}.`,
  );
  out(`- Load time: ${a.failing.length ? `**${loadVerdict(a)}**` : loadVerdict(a)} ${SDK_FLOOR} itself is ${fmtX(a.floor.vsHello)} ${HELLO}; see section 2.`);
  out(`- ${comparisonSummary(a)}`);
  out(
    `- DynamoDB round trips per request: ${tripsFailing.length ? `**${tripsFailing.length} of ${trips.length} cases FAIL** (${tripsFailing.map((t) => t.request).join('; ')})` : `all ${trips.length} cases pass`}.`,
  );
  for (const line of engineSummaryLines(engine)) out(`- ${line}; see section 4.`);
  out();
  out('`npm run bench` exits 0 whether or not budgets pass; it fails only if a measurement cannot be made.');
  out();

  // 1. Bundle sizes
  out('## 1. Bundle size per function');
  out();
  out(`Budget: ≤ ${SIZE_BUDGET_KB} KB (1 KB = 1024 bytes) per function bundle, the AWS SDK included.`);
  out();
  out('| Function | Entry | Bytes | KB | gzip KB | AWS SDK KB | Largest parts | Budget |');
  out('|---|---|---:|---:|---:|---:|---|---|');
  const partsOf = (b: BundleResult) =>
    b.contributors
      .slice(0, 3)
      .map((c) => `${c.name} ${fmtKb(c.bytes)}`)
      .join(', ');
  const sizeRow = (label: string, entry: string, b: BundleResult, budget: string) =>
    `| ${label} | ${entry} | ${b.bytes} | ${fmtKb(b.bytes)} | ${fmtKb(b.gzipBytes)} | ${sdkKb(b)} | ${partsOf(b)} | ${budget} |`;
  for (const b of bundles) out(sizeRow(b.name, `\`${entryOf(b.name)}\``, b, mark(kb(b.bytes) <= SIZE_BUDGET_KB)));
  out(sizeRow(`_${HELLO} (baseline)_`, 'inline', hello, ''));
  out(sizeRow(`_${SDK_FLOOR} (baseline)_`, 'inline', floor, ''));
  if (QUEUES.length === 0) out('\nNo queue workers are defined yet (`QUEUES` in lib/app/queues.ts is empty), so the table lists routes only.');
  out();
  out(
    '**How measured.** Every `entry` in `ROUTES` (lib/app/routes.ts) and every `worker`/`deadLetterWorker` in `QUEUES` (lib/app/queues.ts) is bundled with the esbuild API using the CDK `NodejsFunction` settings: `bundle`, `minify`, `platform: node`, `target: node22`, `format: esm`, `mainFields: [module, main]`, the banner',
  );
  out(
    `\`${ESM_REQUIRE_BANNER}\`, \`sourcemap: external\`, and the stack's external modules (infra/bundling.ts, read by both): ${EXTERNAL_MODULES.length ? `${EXTERNAL_MODULES.map((m) => `\`${m}\``).join(', ')}, which the Lambda Node.js 22 runtime provides; everything else is bundled in` : "none, so everything, the AWS SDK included, is bundled in (the stack overrides CDK's default of leaving `@aws-sdk/*` to the runtime)"}. The size is that of the emitted \`index.mjs\` in a scratch directory under the repository's \`.bench/\`; the \`.map\` file is not counted. "Largest parts" is esbuild's metafile \`bytesInOutput\` summed per npm package, \`(own code)\` being this repository's sources; "AWS SDK KB" sums the \`@aws-sdk/*\`, \`@smithy/*\` and \`@aws-crypto/*\` packages among them (a slight undercount: small packages the SDK pulls in from elsewhere, such as mnemonist for its endpoint cache, bowser and \`@aws/lambda-invoke-store\`, which Powertools uses too, are not counted). The ${HELLO} baseline is \`export const handler = async () => ({ statusCode: 200, body: 'ok' })\`; the ${SDK_FLOOR} baseline imports \`createDynamoDb\` and \`createSqs\` from lib/platform/aws/clients.ts and builds a DynamoDB document client and an SQS client at module scope, with the settings every function's clients have, and nothing else; both are bundled exactly like the functions.`,
  );
  out();

  // 2. Load time
  out('## 2. Cold-start time (whole process)');
  out();
  out(
    `Budget: the median wall time of a fresh \`node\` process that imports the bundle and exits (spawn → import → exit) ≤ ${LOAD_RATIO_BUDGET}× the ${SDK_FLOOR} baseline's median in the same run. Only the "Ratio to ${SDK_FLOOR}" column is budgeted; the ratio to ${HELLO} is reported beside it, and the other columns are context.`,
  );
  out();
  out(a.failing.length ? `**Result: ${loadVerdict(a)}**` : `**Result:** ${loadVerdict(a)}`);
  const near = borderline(a);
  if (near) {
    out();
    out(near);
  }
  out();
  out(
    `| Function | AWS SDK clients bundled (evaluated at init) | Whole process median ms | Min / max ms | Ratio to ${SDK_FLOOR} | Budget | Ratio to ${HELLO} | Import-only median ms (context) |`,
  );
  out('|---|---|---:|---:|---:|---|---:|---:|');
  const rowLine = (label: string, r: LoadRow, budget: string) =>
    `| ${label} | ${sdkColumn(r.bundle)} | ${fmtMs(r.load.process.median)} | ${fmtMs(r.load.process.min)} / ${fmtMs(r.load.process.max)} | ${fmtX(r.vsFloor)} | ${budget} | ${fmtX(r.vsHello)} | ${fmtMs(r.load.importOnly.median)} |`;
  for (const r of a.functions) out(rowLine(r.bundle.name, r, mark(r.pass)));
  out(rowLine(`_${SDK_FLOOR} (baseline)_`, a.floor, ''));
  out(rowLine(`_${HELLO} (baseline)_`, a.hello, ''));
  out();
  out(dominance(a));
  out();
  for (const line of comparisonLines(a)) out(line);
  out();
  for (const line of firstUseLines(a)) out(line);
  out();
  out(
    `**Why the whole process.** A Lambda cold start is the runtime's own start plus the init phase, which is mostly loading the handler module. The import-only interval of ${HELLO} is ${fmtMs(a.hello.load.importOnly.median)} ms, so a ratio with that as the denominator measures nothing useful (a few milliseconds of anything becomes a large multiple). The whole-process time puts the process start (standing in for the runtime's start) in both numerator and denominator, so the ratio says how much a function's module load adds to a cold start. The import-only median stays as a column for context.`,
  );
  out();

  const leftovers = new Map<string, Set<string>>();
  const checked = [...a.functions, a.floor];
  for (const r of checked) {
    for (const res of r.load.leftRunning) {
      const kind = resourceKind(res);
      if (kind === 'stdio' || a.hello.load.leftRunning.includes(res)) continue;
      if (!leftovers.has(kind)) leftovers.set(kind, new Set());
      leftovers.get(kind)!.add(`${r.bundle.name} (${res})`);
    }
  }
  const network = leftovers.get('network');
  out(
    network
      ? `**Network at import:** ${[...network].join(', ')} left a socket or DNS lookup active right after the import (\`process.getActiveResourcesInfo()\`); loading those modules reaches for the network.`
      : 'No import left a socket or DNS lookup active (checked with `process.getActiveResourcesInfo()` right after each import), so no module makes a network call when loaded.',
  );
  const files = leftovers.get('file');
  if (files) {
    const who = [...new Set([...files].map((f) => f.split(' ')[0]))];
    out(
      `Left running after the import, not network: file reads in ${who.length === checked.length ? `every function and ${SDK_FLOOR}` : who.join(', ')}. These construct an AWS SDK client at module scope, and its constructor starts reading the shared config files (\`~/.aws/config\`, \`~/.aws/credentials\`) asynchronously; that I/O is outside the import-only interval but inside the whole-process time, since the process exits only once it has finished.`,
    );
  }
  const others = [...leftovers].filter(([kind]) => kind !== 'network' && kind !== 'file');
  if (others.length) out(`Also left running: ${others.map(([kind, set]) => `${kind}: ${[...set].join(', ')}`).join('; ')}.`);
  out();
  out(
    `**How measured.** Each sample is a fresh \`node\` process (the Node running the bench, ${process.version}, with a clean environment: no \`NODE_OPTIONS\`, no tsx) running a small loader that defines a stand-in for the \`awslambda\` global the Lambda runtime provides (a response-streaming handler calls \`awslambda.streamifyResponse\` at module scope), then does \`await import(<bundle file URL>)\`, checks that the module exports a \`handler\` function, prints, and is left to exit on its own when its event loop drains (no \`process.exit()\`). The whole-process time, the budgeted figure, is measured by the bench around \`spawnSync\`: spawn, Node start-up, loader, import (reading, parsing, linking and evaluating the bundle's top level, the bundled AWS SDK included), whatever the import left pending, and exit; the cost of the spawn itself is the same for every bundle. The import-only time is \`performance.now()\` taken in the child immediately before and after the \`await import()\`. The environment holds harmless values (\`TABLE_NAME\`, \`AWS_REGION\`, dummy credentials, endpoints on a closed local port); handlers create their clients without connecting. There are ${LOAD_RUNS} recorded rounds after one unrecorded warm-up round; every round loads every bundle (functions, both baselines, the first-use bundles and the old-client comparison) once, in a freshly shuffled order, so the baselines share the machine's drift. The table gives medians per bundle and their ratios to the baselines' medians. Lambda's own runtime start (its runtime client on top of Node 22) is not reproduced here.`,
  );
  out();

  // 3. Round trips
  out('## 3. DynamoDB round trips per request');
  out();
  out('| Case | Request | Status | DynamoDB calls per request | Min / max | Breakdown (X-Amz-Target, all requests) | Budget |');
  out('|---|---|---|---:|---|---|---|');
  for (const t of trips) {
    const statuses = Object.entries(t.statuses)
      .map(([s, n]) => `${s} ×${n}`)
      .join(', ');
    const breakdown =
      Object.entries(t.byTarget)
        .map(([op, n]) => `${op} ${n} (${(n / t.requests).toFixed(2)}/req)`)
        .join(', ') || 'none';
    out(
      `| ${t.label} | \`${t.request}\` | ${statuses} | ${t.perRequest.toFixed(2)} | ${t.minPerRequest} / ${t.maxPerRequest} | ${breakdown} | ${t.exact ? '=' : '≤'} ${t.budget}: ${mark(t.pass)} |`,
    );
  }
  out();
  out(
    `**How measured.** DynamoDB Local is started with \`startDynamoDbLocal\` (lib/local/emulators.ts) and put behind a counting HTTP proxy (bench/counting-proxy.ts) on 127.0.0.1 that forwards every request unchanged and records its \`X-Amz-Target\` header, so each DynamoDB API call, SDK retries included, counts once. The local stack (\`startLocalStack\`, lib/local/stack.ts, on a free port) gets the proxy as its DynamoDB endpoint, so the real handler code runs through the local API gateway. An account is created with the operator command \`account:create\` (pro plan, 10 USD), a session is opened with \`POST /v1/auth/login\` and a token minted with \`POST /v1/api-tokens\` and that session cookie. For each case, one unrecorded request loads the handler, the counter is reset, ${REQUESTS} requests are sent one after another, and the total (read 200 ms after the last answer, so work a handler leaves running after answering is caught) is divided by ${REQUESTS}. "Min / max" are per-request counts. A case also fails if any answer has another status than the one shown as expected (${trips.map((t) => `${t.expectedStatus} for ${t.request}`).join('; ')}).`,
  );
  out();
  for (const line of renderEngineSection(engine, 4)) out(line);
  return lines.join('\n');
}

let engineChild: ChildProcess | undefined;

/**
 * The engine section in a process of its own: handler modules keep the
 * clients of the first stack that loaded them, so it cannot share this
 * process with the round-trip stack.
 */
async function runEngine(work: string): Promise<EngineResults> {
  const out = join(work, 'engine.json');
  log(`workflow engine: ${ENGINE_RUNS} requests per shape, latency, ${SSE_LISTENERS} SSE listeners (bench/engine.ts, own process)`);
  await new Promise<void>((resolvePromise, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(REPO_ROOT, 'bench', 'engine.ts'), '--out', out, '--runs', String(ENGINE_RUNS), '--listeners', String(SSE_LISTENERS)],
      { cwd: REPO_ROOT, stdio: ['ignore', 'inherit', 'inherit'], env: process.env },
    );
    engineChild = child;
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      engineChild = undefined;
      if (code === 0) resolvePromise();
      else reject(new Error(`bench/engine.ts exited with ${code ?? signal}`));
    });
  });
  return JSON.parse(readFileSync(out, 'utf8')) as EngineResults;
}

async function engineOnly(): Promise<void> {
  mkdirSync(join(REPO_ROOT, '.bench'), { recursive: true });
  const work = mkdtempSync(join(REPO_ROOT, '.bench', 'engine-'));
  try {
    const engine = await runEngine(work);
    console.log(`\n${renderEngineSection(engine, 4).join('\n')}`);
    console.log(engineConsoleLines(engine).join('\n'));
    console.log(`\n(Engine section only: docs/benchmarks.md is written by the full \`${COMMAND}\`.)`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The old-client comparison's two bundles; if the old sources cannot be had, the reason instead (the run goes on). */
async function oldClientBundles(work: string): Promise<{ sources: OldClientSources; client: BundleResult; fn: BundleResult } | { skipped: string }> {
  try {
    const sources = prepareOldClient(REPO_ROOT, work);
    log(`old client from ${OLD_CLIENT_COMMIT} (signing package ${sources.signer.version} from ${sources.signer.from})`);
    return {
      sources,
      client: await bundle({ name: OLD_CLIENT, kind: 'context', entry: sources.clientEntry }, work, REPO_ROOT),
      fn: await bundle({ name: oldFunctionName, kind: 'context', entry: sources.functionEntry }, work, REPO_ROOT),
    };
  } catch (error) {
    const skipped = error instanceof Error ? error.message : String(error);
    log(`old-client comparison skipped: ${skipped}`);
    return { skipped };
  }
}

async function main(): Promise<void> {
  const started = new Date();
  const revision = codeRevision();
  const t0 = performance.now();
  const watchdog = setTimeout(() => {
    console.error('[bench] still running after 6 minutes; giving up.');
    engineChild?.kill('SIGTERM');
    setTimeout(() => process.exit(2), 5_000).unref();
  }, 360_000);
  watchdog.unref();
  if (ENGINE_ONLY) return engineOnly();

  // Inside the repository (git-ignored .bench/) so the generated entries resolve packages from node_modules.
  mkdirSync(join(REPO_ROOT, '.bench'), { recursive: true });
  const work = mkdtempSync(join(REPO_ROOT, '.bench', 'run-'));
  try {
    log(`bundling ${ROUTES.length} routes and ${QUEUES.length} queue workers into ${work}`);
    const bundles: BundleResult[] = [];
    for (const target of targets()) bundles.push(await bundle(target, work, REPO_ROOT));
    const src = join(work, 'src');
    const hello = await bundle({ name: HELLO, kind: 'baseline', entry: writeHelloWorldEntry(src) }, work, REPO_ROOT);
    const floor = await bundle({ name: SDK_FLOOR, kind: 'baseline', entry: writeSdkFloorEntry(src, REPO_ROOT) }, work, REPO_ROOT);
    const firstUse: BundleResult[] = [];
    for (const item of FIRST_USE)
      firstUse.push(await bundle({ name: item.name, kind: 'context', entry: writeFirstUseEntry(src, item, REPO_ROOT) }, work, REPO_ROOT));
    const old = await oldClientBundles(work);

    const measured = [...bundles, hello, floor, ...firstUse, ...('skipped' in old ? [] : [old.client, old.fn])];
    log(`measuring whole-process load times: ${LOAD_RUNS} rounds × ${measured.length} bundles in fresh node processes`);
    const loads = measureLoadTimes(measured, LOAD_RUNS, work);
    const analysis = analyse(bundles, hello, floor, firstUse, old, loads, nodeModulesFootprint(floor.outfile, work));

    if (!LOAD_ONLY) log(`counting DynamoDB round trips (${REQUESTS} requests per case)`);
    const trips = LOAD_ONLY ? [] : await measureRoundTrips(REQUESTS, log);
    const engine = LOAD_ONLY ? undefined : await runEngine(work);

    const seconds = (performance.now() - t0) / 1000;
    if (engine) {
      mkdirSync(dirname(REPORT), { recursive: true });
      writeFileSync(REPORT, renderReport({ started, seconds, bundles, hello, floor, analysis, trips, engine, revision }));
    }

    const sizeFailing = bundles.filter((b) => kb(b.bytes) > SIZE_BUDGET_KB);
    console.log(`\nBundle size (budget ≤ ${SIZE_BUDGET_KB} KB):`);
    for (const b of bundles) console.log(`  ${b.name.padEnd(26)} ${fmtKb(b.bytes).padStart(7)} KB  ${kb(b.bytes) <= SIZE_BUDGET_KB ? 'pass' : 'FAIL'}`);
    console.log(`  ${HELLO.padEnd(26)} ${fmtKb(hello.bytes).padStart(7)} KB  (baseline)`);
    console.log(`  ${SDK_FLOOR.padEnd(26)} ${fmtKb(floor.bytes).padStart(7)} KB  (baseline)`);
    if (!('skipped' in old))
      for (const b of [old.client, old.fn]) console.log(`  ${b.name.padEnd(26)} ${fmtKb(b.bytes).padStart(7)} KB  (context: ${OLD_CLIENT_COMMIT})`);

    const a = analysis;
    console.log(
      `\nLoad time, whole process spawn → exit, median (budget ≤ ${LOAD_RATIO_BUDGET}× ${SDK_FLOOR} ${fmtMs(a.floor.load.process.median)} ms; ${HELLO} ${fmtMs(a.hello.load.process.median)} ms; ${SDK_FLOOR} = ${fmtX(a.floor.vsHello)} ${HELLO}):`,
    );
    console.log(`  ${''.padEnd(26)} ${'process'.padStart(9)}  ${'×sdk-floor'.padStart(10)}  ${'×hello'.padStart(6)}  ${'import'.padStart(9)}`);
    const line = (label: string, r: LoadRow, verdict: string) =>
      console.log(
        `  ${label.padEnd(26)} ${`${fmtMs(r.load.process.median)} ms`.padStart(9)}  ${fmtX(r.vsFloor).padStart(10)}  ${fmtX(r.vsHello).padStart(6)}  ${`${fmtMs(r.load.importOnly.median)} ms`.padStart(9)}  ${verdict}`,
      );
    for (const r of a.functions) line(r.bundle.name, r, r.pass ? 'pass' : 'FAIL');
    line(SDK_FLOOR, a.floor, '(baseline)');
    line(HELLO, a.hello, '(baseline)');
    for (const r of a.firstUse) line(r.bundle.name, r, '(context: loaded on first use)');
    if (!('skipped' in a.comparison)) {
      line(a.comparison.oldClient.bundle.name, a.comparison.oldClient, `(context: ${OLD_CLIENT_COMMIT}'s hand-written client)`);
      line(a.comparison.oldFunction.bundle.name, a.comparison.oldFunction, `(context: ${OLD_FUNCTION.route} at ${OLD_CLIENT_COMMIT})`);
    }
    console.log(`  ${loadVerdict(a)}`);
    const near = borderline(a);
    if (near) console.log(`  ${near}`);
    console.log(`  ${comparisonSummary(a)}`);

    if (!engine) {
      console.log(`\n(Bundle sizes and load times only: docs/benchmarks.md is written by the full \`${COMMAND}\`.)`);
      return;
    }
    console.log('\nDynamoDB calls per request:');
    for (const t of trips) {
      console.log(`  ${t.request.padEnd(40)} ${t.perRequest.toFixed(2)}  ${JSON.stringify(t.byTarget)}  ${t.pass ? 'pass' : 'FAIL'}`);
    }
    const tripsFailing = trips.filter((t) => !t.pass);
    console.log('\nBudgets:');
    console.log(
      `  bundle size   ${sizeFailing.length ? `FAIL (${sizeFailing.length} of ${bundles.length})` : `pass (${bundles.length} of ${bundles.length})`}`,
    );
    console.log(
      `  load time     ${a.failing.length ? `FAIL (${a.failing.length} of ${a.functions.length})` : `pass (${a.functions.length} of ${a.functions.length})`}`,
    );
    console.log(`  round trips   ${tripsFailing.length ? `FAIL (${tripsFailing.length} of ${trips.length})` : `pass (${trips.length} of ${trips.length})`}`);
    const engineFailing = engine.shapes.filter((s) => s.perMillion.total > engine.target);
    console.log(
      `  engine cost   ${engineFailing.length ? `FAIL (${engineFailing.length} of ${engine.shapes.length} shapes over ${engine.target.toFixed(2)} USD per million nodes)` : `pass (${engine.shapes.length} of ${engine.shapes.length})`}`,
    );
    console.log(`\n${engineConsoleLines(engine).join('\n')}`);
    console.log(`\nWrote ${REPORT} in ${seconds.toFixed(0)} s.`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error('[bench] failed:', error);
    process.exit(1);
  },
);
