/**
 * `npm run bench`: bundle sizes, whole-process cold-start times against a
 * hello-world baseline (and an AWS SDK floor, for context), DynamoDB round
 * trips per request, and the workflow engine's cost per million node
 * executions, node-to-child latency and SSE listeners (bench/engine.ts, run
 * in a process of its own). Writes docs/benchmarks.md.
 *
 * `npm run bench -- engine` runs only the engine section and prints it, and
 * `npm run bench -- load` only bundle sizes and load times; docs/benchmarks.md
 * is written only by the full run.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { cpus, release, totalmem, platform, arch } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { QUEUES } from '../lib/queues.js';
import { ROUTES } from '../lib/routes.js';
import { ESM_REQUIRE_BANNER, EXTERNAL_MODULES } from '../infra/bundling.js';
import { bundle, esbuildVersion, FIRST_USE, writeFirstUseEntry, writeHelloWorldEntry, writeSdkFloorEntry, type BundleResult, type BundleTarget } from './bundle.js';
import { measureLoadTimes, nodeModulesFootprint, resourceKind, type LoadStats } from './load-time.js';
import { measureRoundTrips, type RoundTripResult } from './round-trips.js';
import type { EngineResults } from './engine.js';
import { engineConsoleLines, engineSummaryLines, renderEngineSection } from './engine-report.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const REPORT = join(REPO_ROOT, 'docs', 'benchmarks.md');
const COMMAND = 'npm run bench';

const SIZE_BUDGET_KB = 250;
const LOAD_RATIO_BUDGET = 2;
/** Fewer samples than this make a median too jumpy to compare against. */
const MIN_LOAD_RUNS = 11;
// 20, not more: with every route and worker bundled, each round is ~30 fresh processes, and the whole bench must stay under 5 minutes.
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
const span = (values: number[], fmt: (n: number) => string): string => {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return fmt(lo) === fmt(hi) ? fmt(lo) : `${fmt(lo)}–${fmt(hi)}`;
};
const names = (list: Array<{ bundle: BundleResult }>): string => list.map((r) => r.bundle.name).join(', ');

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
  if (queue) return name.startsWith('dlq-') ? queue.deadLetterWorker ?? '' : queue.worker;
  return '(inline, see below)';
}

/** The AWS SDK packages a bundle loads from the runtime at init, and those it imports later, on first use. */
const sdkAtInit = (b: BundleResult): string[] => b.externalImports.filter((p) => p.startsWith('@aws-sdk/'));
const sdkOnFirstUse = (b: BundleResult): string[] => b.lazyExternalImports.filter((p) => p.startsWith('@aws-sdk/'));
const sdkColumn = (b: BundleResult): string => {
  const short = (list: string[]) => list.map((p) => p.replace('@aws-sdk/', '')).join(', ');
  const init = short(sdkAtInit(b));
  const later = short(sdkOnFirstUse(b));
  return [init || 'no', later ? `(${later} on first use)` : ''].filter(Boolean).join(' ');
};

interface LoadRow {
  bundle: BundleResult;
  load: LoadStats;
  /** Whole-process median over hello-world's: the budgeted figure. */
  vsHello: number;
  /** Whole-process median over sdk-floor's: context. */
  vsFloor: number;
  pass: boolean;
}

interface LoadAnalysis {
  functions: LoadRow[];
  hello: LoadRow;
  floor: LoadRow;
  /** What functions load on first use, measured as bundles of their own (context). */
  firstUse: LoadRow[];
  failing: LoadRow[];
  /** CommonJS files (and their bytes on disk) that loading sdk-floor pulls from node_modules. */
  floorFootprint: { files: number; bytes: number };
}

function analyse(
  functions: BundleResult[],
  hello: BundleResult,
  floor: BundleResult,
  firstUse: BundleResult[],
  loads: LoadStats[],
  floorFootprint: LoadAnalysis['floorFootprint'],
): LoadAnalysis {
  const loadOf = (b: BundleResult) => loads.find((l) => l.name === b.name)!;
  const helloMs = loadOf(hello).process.median;
  const floorMs = loadOf(floor).process.median;
  const row = (b: BundleResult): LoadRow => {
    const load = loadOf(b);
    const vsHello = load.process.median / helloMs;
    return { bundle: b, load, vsHello, vsFloor: load.process.median / floorMs, pass: vsHello <= LOAD_RATIO_BUDGET };
  };
  const rows = functions.map(row);
  return {
    functions: rows,
    hello: row(hello),
    floor: row(floor),
    firstUse: firstUse.map(row),
    failing: rows.filter((r) => !r.pass),
    floorFootprint,
  };
}

function loadVerdict(a: LoadAnalysis): string {
  const n = a.functions.length;
  if (a.failing.length === 0) return `All ${n} functions pass the load-time budget (whole-process median ≤ ${LOAD_RATIO_BUDGET}× hello-world).`;
  const worst = a.failing.reduce((w, r) => (r.vsHello > w.vsHello ? r : w));
  return `${a.failing.length} of ${n} functions FAIL the load-time budget (whole-process median ≤ ${LOAD_RATIO_BUDGET}× hello-world): ${names(a.failing)}; worst ${worst.bundle.name} at ${fmtX(worst.vsHello)}.`;
}

/** Functions whose budgeted ratio is within 5 % of the budget: another run may put them on the other side. */
function borderline(a: LoadAnalysis): string | undefined {
  const near = a.functions.filter((r) => Math.abs(r.vsHello - LOAD_RATIO_BUDGET) / LOAD_RATIO_BUDGET <= 0.05);
  if (!near.length) return undefined;
  return `Borderline: ${near.map((r) => `${r.bundle.name} (${fmtX(r.vsHello)}, ${r.pass ? 'pass' : 'FAIL'})`).join(', ')} ${near.length === 1 ? 'is' : 'are'} within 5 % of the ${LOAD_RATIO_BUDGET}× budget, so another run may land on the other side; the mark is what this run measured.`;
}

/** One paragraph: what the load time is made of, and what the AWS SDK would add. */
function dominance(a: LoadAnalysis): string {
  const H = a.hello.load.process.median;
  const S = a.floor.load.process.median;
  const fp = a.floorFootprint;
  const atInit = a.functions.filter((r) => sdkAtInit(r.bundle).length > 0);
  const onFirstUse = a.functions.filter((r) => sdkOnFirstUse(r.bundle).length > 0);
  const slowest = [...a.functions].sort((x, y) => y.vsHello - x.vsHello).slice(0, 3);
  const parts: string[] = [];
  parts.push(
    atInit.length
      ? `${names(atInit)} load the AWS SDK at init.`
      : `No function loads the AWS SDK at init: they reach DynamoDB and SQS through lib/aws/ (the services' JSON protocol, SigV4-signed by aws4fetch), bundled in${onFirstUse.length ? `; ${names(onFirstUse)} import${onFirstUse.length === 1 ? 's' : ''} ${[...new Set(onFirstUse.flatMap((r) => sdkOnFirstUse(r.bundle)))].join(', ')} on first use, i.e. on the first Bedrock call, not at init` : ''}.`,
  );
  parts.push(
    `For context, ${SDK_FLOOR}, nothing but the SDK's DynamoDB document client constructed at module scope, takes ${fmtMs(S)} ms from spawn to exit, ${fmtX(a.floor.vsHello)} ${HELLO}'s ${fmtMs(H)} ms: a function built on it would start ${a.floor.vsHello > LOAD_RATIO_BUDGET ? 'over' : 'near'} the ${LOAD_RATIO_BUDGET}× budget before any code of its own, because its import reads and compiles ${fp.files} CommonJS files from node_modules, ${fmtKb(fp.bytes)} KB unminified (every DynamoDB command, used or not), and the client constructor then reads the shared AWS config files. That is why the data layer does not use it.`,
  );
  parts.push(
    `What remains is each function's own bundle: parsing it (JSONata's 80 KB are parsed even where it is loaded on first use), and evaluating its top level: zod and the request schemas built at module scope, middy, the Powertools modules a function uses (idempotency and its JMESPath on v2 writes). The slowest are ${slowest.map((r) => `${r.bundle.name} (${fmtX(r.vsHello)}; ${fmtKb(r.bundle.bytes)} KB, largest parts ${r.bundle.contributors.slice(0, 2).map((c) => `${c.name} ${fmtKb(c.bytes)} KB`).join(', ')})`).join(', ')}.`,
  );
  return `**What the load time is made of.** ${parts.join(' ')}`;
}

/** The deferred loads: what each adds to the first invocation that needs it. */
function firstUseLines(a: LoadAnalysis): string[] {
  const H = a.hello.load.process.median;
  return [
    '**Loaded on first use, not at init.** A function loads at init what every invocation needs, and on first use what only some do. What each deferred load adds to the first invocation that needs it, measured as a bundle of its own that does the same at module scope (whole-process median minus hello-world\'s, same run):',
    '',
    '| Deferred load | Functions | When | Adds (ms) | As a multiple of hello-world |',
    '|---|---|---|---:|---:|',
    ...a.firstUse.map((r) => {
      const item = FIRST_USE.find((f) => f.name === r.bundle.name)!;
      return `| ${item.name.replace('first-use:', '')} | ${item.who} | ${item.trigger} | ${fmtMs(r.load.process.median - H)} | ${fmtX(r.vsHello - 1)} |`;
    }),
  ];
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

  out('# Benchmarks');
  out();
  out(`Generated by \`${COMMAND}\` (bench/run.ts) on ${input.started.toISOString()}; the run took ${input.seconds.toFixed(0)} s. Do not edit by hand: rerun the command.`);
  out();
  out(`- Machine: ${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}${cpu[0]?.speed ? ` (${cpu[0].speed} MHz)` : ''}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${platform()} ${release()} ${arch()}`);
  out(`- Node ${process.version} (the Lambda functions run on Node 22; bundles target node22), esbuild ${esbuildVersion}, AWS SDK (\`@aws-sdk/client-dynamodb\`) ${sdkVersion()} from node_modules`);
  out(`- Code: ${input.revision}`);
  out(`- Load-time samples per bundle: ${LOAD_RUNS}; requests per round-trip case: ${REQUESTS}; workflow requests per engine shape: ${engine.runsPerShape}; SSE listeners: ${SSE_LISTENERS}`);
  out();
  out('Machines are noisy and this one is not Lambda. Absolute milliseconds are context only; the claims are the byte counts, the round-trip counts, load-time and latency **ratios** against baselines measured in the same run, and the engine\'s counted request units priced at AWS list prices.');
  out();
  out('## Summary');
  out();
  out(`- Bundle size (≤ ${SIZE_BUDGET_KB} KB): ${sizeFailing.length ? `**${sizeFailing.length} of ${bundles.length} functions FAIL** (${sizeFailing.map((b) => b.name).join(', ')})` : `all ${bundles.length} functions pass`}.`);
  out(`- Load time: ${a.failing.length ? `**${loadVerdict(a)}**` : loadVerdict(a)} For context, the AWS SDK's DynamoDB document client alone (sdk-floor), which the functions do not load, is ${fmtX(a.floor.vsHello)} hello-world; see section 2.`);
  out(`- DynamoDB round trips per request: ${tripsFailing.length ? `**${tripsFailing.length} of ${trips.length} cases FAIL** (${tripsFailing.map((t) => t.request).join('; ')})` : `all ${trips.length} cases pass`}.`);
  for (const line of engineSummaryLines(engine)) out(`- ${line}; see section 4.`);
  out();
  out('`npm run bench` exits 0 whether or not budgets pass; it fails only if a measurement cannot be made.');
  out();

  // 1. Bundle sizes
  out('## 1. Bundle size per function');
  out();
  out(`Budget: ≤ ${SIZE_BUDGET_KB} KB (1 KB = 1024 bytes) per function bundle.`);
  out();
  out('| Function | Entry | Bytes | KB | gzip KB | Largest parts | Budget |');
  out('|---|---|---:|---:|---:|---|---|');
  const partsOf = (b: BundleResult) => b.contributors.slice(0, 3).map((c) => `${c.name} ${fmtKb(c.bytes)}`).join(', ');
  for (const b of bundles) {
    out(`| ${b.name} | \`${entryOf(b.name)}\` | ${b.bytes} | ${fmtKb(b.bytes)} | ${fmtKb(b.gzipBytes)} | ${partsOf(b)} | ${mark(kb(b.bytes) <= SIZE_BUDGET_KB)} |`);
  }
  out(`| _${HELLO} (baseline)_ | inline | ${hello.bytes} | ${fmtKb(hello.bytes)} | ${fmtKb(hello.gzipBytes)} | | |`);
  out(`| _${SDK_FLOOR} (baseline)_ | inline | ${floor.bytes} | ${fmtKb(floor.bytes)} | ${fmtKb(floor.gzipBytes)} | ${partsOf(floor)} | |`);
  if (QUEUES.length === 0) out('\nNo queue workers are defined yet (`QUEUES` in lib/queues.ts is empty), so the table lists routes only.');
  out();
  out('**How measured.** Every `entry` in `ROUTES` (lib/routes.ts) and every `worker`/`deadLetterWorker` in `QUEUES` (lib/queues.ts) is bundled with the esbuild API using the CDK `NodejsFunction` settings: `bundle`, `minify`, `platform: node`, `target: node22`, `format: esm`, `mainFields: [module, main]`, the banner');
  out(`\`${ESM_REQUIRE_BANNER}\`, \`sourcemap: external\`, and the stack's external modules (infra/bundling.ts, read by both): ${EXTERNAL_MODULES.map((m) => `\`${m}\``).join(', ')}, which the Lambda Node.js 22 runtime provides; everything else is bundled in. The size is that of the emitted \`index.mjs\` in a scratch directory under the repository's \`.bench/\` (so an external package resolves from \`node_modules\`, as it does from the runtime's own in Lambda); the \`.map\` file is not counted. "Largest parts" is esbuild's metafile \`bytesInOutput\` summed per npm package, \`(own code)\` being this repository's sources. The ${HELLO} baseline is \`export const handler = async () => ({ statusCode: 200, body: 'ok' })\` and the ${SDK_FLOOR} baseline imports \`DynamoDBClient\` from \`@aws-sdk/client-dynamodb\` and \`DynamoDBDocumentClient\` from \`@aws-sdk/lib-dynamodb\` and constructs a document client at module scope, bundled the same way but with every \`@aws-sdk/*\` package external, as CDK's NodejsFunction does by default: it shows what the SDK would cost a function, which is why the functions do not use it.`);
  out();

  // 2. Load time
  out('## 2. Cold-start time (whole process)');
  out();
  out(`Budget: the median wall time of a fresh \`node\` process that imports the bundle and exits (spawn → import → exit) ≤ ${LOAD_RATIO_BUDGET}× the ${HELLO} baseline's median in the same run. Only the "Ratio to ${HELLO}" column is budgeted; the other columns are context.`);
  out();
  out(a.failing.length ? `**Result: ${loadVerdict(a)}**` : `**Result:** ${loadVerdict(a)}`);
  const near = borderline(a);
  if (near) {
    out();
    out(near);
  }
  out();
  out(`| Function | AWS SDK from the runtime | Whole process median ms | Min / max ms | Ratio to ${HELLO} | Budget | Ratio to ${SDK_FLOOR} (context) | Import-only median ms (context) |`);
  out('|---|---|---:|---:|---:|---|---:|---:|');
  const rowLine = (label: string, r: LoadRow, budget: string) =>
    `| ${label} | ${sdkColumn(r.bundle)} | ${fmtMs(r.load.process.median)} | ${fmtMs(r.load.process.min)} / ${fmtMs(r.load.process.max)} | ${fmtX(r.vsHello)} | ${budget} | ${fmtX(r.vsFloor)} | ${fmtMs(r.load.importOnly.median)} |`;
  for (const r of a.functions) out(rowLine(r.bundle.name, r, mark(r.pass)));
  out(rowLine(`_${HELLO} (baseline)_`, a.hello, ''));
  out(rowLine(`_${SDK_FLOOR} (baseline)_`, a.floor, ''));
  out();
  out(dominance(a));
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
      `Left running after the import, not network: file reads in ${who.join(', ')}. These construct an AWS SDK client at module scope, and its constructor starts reading the shared config files (\`~/.aws/config\`, \`~/.aws/credentials\`) asynchronously; that I/O is outside the import-only interval but inside the whole-process time, since the process exits only once it has finished.`,
    );
  }
  const others = [...leftovers].filter(([kind]) => kind !== 'network' && kind !== 'file');
  if (others.length) out(`Also left running: ${others.map(([kind, set]) => `${kind}: ${[...set].join(', ')}`).join('; ')}.`);
  out();
  out(
    `**How measured.** Each sample is a fresh \`node\` process (the Node running the bench, ${process.version}, with a clean environment: no \`NODE_OPTIONS\`, no tsx) running a small loader that defines a stand-in for the \`awslambda\` global the Lambda runtime provides (a response-streaming handler calls \`awslambda.streamifyResponse\` at module scope), then does \`await import(<bundle file URL>)\`, checks that the module exports a \`handler\` function, prints, and is left to exit on its own when its event loop drains (no \`process.exit()\`). The whole-process time, the budgeted figure, is measured by the bench around \`spawnSync\`: spawn, Node start-up, loader, import (reading, parsing, linking and evaluating the bundle's top level, and for ${SDK_FLOOR} loading the AWS SDK from \`node_modules\`), whatever the import left pending, and exit; the cost of the spawn itself is the same for every bundle. The import-only time is \`performance.now()\` taken in the child immediately before and after the \`await import()\`. The environment holds harmless values (\`TABLE_NAME\`, \`AWS_REGION\`, dummy credentials, endpoints on a closed local port); handlers create their clients without connecting. There are ${LOAD_RUNS} recorded rounds after one unrecorded warm-up round; every round loads every bundle (functions, both baselines and the first-use bundles) once, in a freshly shuffled order, so the baselines share the machine's drift. The table gives medians per bundle and their ratios to the baselines' medians. Lambda's own runtime start (its runtime client on top of Node 22) is not reproduced here.`,
  );
  out();

  // 3. Round trips
  out('## 3. DynamoDB round trips per request');
  out();
  out('| Case | Request | Status | DynamoDB calls per request | Min / max | Breakdown (X-Amz-Target, all requests) | Budget |');
  out('|---|---|---|---:|---|---|---|');
  for (const t of trips) {
    const statuses = Object.entries(t.statuses).map(([s, n]) => `${s} ×${n}`).join(', ');
    const breakdown = Object.entries(t.byTarget).map(([op, n]) => `${op} ${n} (${(n / t.requests).toFixed(2)}/req)`).join(', ') || 'none';
    out(`| ${t.label} | \`${t.request}\` | ${statuses} | ${t.perRequest.toFixed(2)} | ${t.minPerRequest} / ${t.maxPerRequest} | ${breakdown} | ${t.exact ? '=' : '≤'} ${t.budget}: ${mark(t.pass)} |`);
  }
  out();
  out(`**How measured.** DynamoDB Local is started with \`startDynamoDbLocal\` (lib/local/emulators.ts) and put behind a counting HTTP proxy (bench/counting-proxy.ts) on 127.0.0.1 that forwards every request unchanged and records its \`X-Amz-Target\` header, so each DynamoDB API call, SDK retries included, counts once. The local stack (\`startLocalStack\`, lib/local/stack.ts, on a free port) gets the proxy as its DynamoDB endpoint, so the real handler code runs through the local API gateway. An account is created with the operator command \`account:create\` (pro plan, 10 USD), a session is opened with \`POST /v1/auth/login\` and a token minted with \`POST /v1/api-tokens\` and that session cookie. For each case, one unrecorded request loads the handler, the counter is reset, ${REQUESTS} requests are sent one after another, and the total (read 200 ms after the last answer, so work a handler leaves running after answering is caught) is divided by ${REQUESTS}. "Min / max" are per-request counts. A case also fails if any answer has another status than the one shown as expected (${trips.map((t) => `${t.expectedStatus} for ${t.request}`).join('; ')}).`);
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

  // Inside the repository so bundles resolve the external AWS SDK from node_modules.
  mkdirSync(join(REPO_ROOT, '.bench'), { recursive: true });
  const work = mkdtempSync(join(REPO_ROOT, '.bench', 'run-'));
  try {
    log(`bundling ${ROUTES.length} routes and ${QUEUES.length} queue workers into ${work}`);
    const bundles: BundleResult[] = [];
    for (const target of targets()) bundles.push(await bundle(target, work, REPO_ROOT));
    const src = join(work, 'src');
    const hello = await bundle({ name: HELLO, kind: 'baseline', entry: writeHelloWorldEntry(src) }, work, REPO_ROOT);
    const floor = await bundle({ name: SDK_FLOOR, kind: 'baseline', entry: writeSdkFloorEntry(src), externals: 'sdk-external' }, work, REPO_ROOT);
    const firstUse: BundleResult[] = [];
    for (const item of FIRST_USE) firstUse.push(await bundle({ name: item.name, kind: 'context', entry: writeFirstUseEntry(src, item, REPO_ROOT) }, work, REPO_ROOT));

    const measured = [...bundles, hello, floor, ...firstUse];
    log(`measuring whole-process load times: ${LOAD_RUNS} rounds × ${measured.length} bundles in fresh node processes`);
    const loads = measureLoadTimes(measured, LOAD_RUNS, work);
    const analysis = analyse(bundles, hello, floor, firstUse, loads, nodeModulesFootprint(floor.outfile, work));

    const trips = LOAD_ONLY ? [] : (log(`counting DynamoDB round trips (${REQUESTS} requests per case)`), await measureRoundTrips(REQUESTS, log));
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

    const a = analysis;
    console.log(
      `\nLoad time, whole process spawn → exit, median (budget ≤ ${LOAD_RATIO_BUDGET}× ${HELLO} ${fmtMs(a.hello.load.process.median)} ms; ${SDK_FLOOR} ${fmtMs(a.floor.load.process.median)} ms = ${fmtX(a.floor.vsHello)}):`,
    );
    console.log(`  ${''.padEnd(26)} ${'process'.padStart(9)}  ${'×hello'.padStart(6)}  ${'×sdk-floor'.padStart(10)}  ${'import'.padStart(9)}`);
    const line = (label: string, r: LoadRow, verdict: string) =>
      console.log(
        `  ${label.padEnd(26)} ${`${fmtMs(r.load.process.median)} ms`.padStart(9)}  ${fmtX(r.vsHello).padStart(6)}  ${fmtX(r.vsFloor).padStart(10)}  ${`${fmtMs(r.load.importOnly.median)} ms`.padStart(9)}  ${verdict}`,
      );
    for (const r of a.functions) line(r.bundle.name, r, r.pass ? 'pass' : 'FAIL');
    line(HELLO, a.hello, '(baseline)');
    line(SDK_FLOOR, a.floor, '(baseline)');
    for (const r of a.firstUse) line(r.bundle.name, r, '(context: loaded on first use)');
    console.log(`  ${loadVerdict(a)}`);
    const near = borderline(a);
    if (near) console.log(`  ${near}`);
    console.log(`  For context, the AWS SDK's document client alone (${SDK_FLOOR}) is ${fmtX(a.floor.vsHello)} ${HELLO}; the functions do not load it (see docs/benchmarks.md, section 2).`);

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
    console.log(`  bundle size   ${sizeFailing.length ? `FAIL (${sizeFailing.length} of ${bundles.length})` : `pass (${bundles.length} of ${bundles.length})`}`);
    console.log(`  load time     ${a.failing.length ? `FAIL (${a.failing.length} of ${a.functions.length})` : `pass (${a.functions.length} of ${a.functions.length})`}`);
    console.log(`  round trips   ${tripsFailing.length ? `FAIL (${tripsFailing.length} of ${trips.length})` : `pass (${trips.length} of ${trips.length})`}`);
    const engineFailing = engine.shapes.filter((s) => s.perMillion.total > engine.target);
    console.log(`  engine cost   ${engineFailing.length ? `FAIL (${engineFailing.length} of ${engine.shapes.length} shapes over ${engine.target.toFixed(2)} USD per million nodes)` : `pass (${engine.shapes.length} of ${engine.shapes.length})`}`);
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
