import { HELLO, SDK_FLOOR } from '../support/baselines.js';
import { type BundleResult, isAwsSdkPackage } from '../support/bundling.js';
import { fmtKb, fmtMs, fmtX, lineWriter, mark, plural } from '../support/format.js';
import { resourceKind } from '../support/process-timing.js';
import { firstUseLines } from './first-use.js';
import { borderline, LOAD_RATIO_BUDGET, type LoadRow, type LoadTimes, loadVerdict, names } from './load-time.js';
import { type Comparison, comparisonLines } from './old-client.js';

/** Section 2 of docs/benchmarks.md: the load-time table, what the time is made of, and how it was measured. */

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

const largestOwn = (b: BundleResult, n: number): string =>
  b.contributors
    .filter((c) => !isAwsSdkPackage(c.name))
    .slice(0, n)
    .map((c) => `${c.name} ${fmtKb(c.bytes)} KB`)
    .join(', ');

/** One paragraph: what the load time is made of. */
function dominance(a: LoadTimes): string {
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
    `${SDK_FLOOR}, those two clients and nothing else, is a ${fmtKb(f.bytes)} KB bundle (${fmtKb(f.sdkBytes)} KB of it the SDK's packages; loading it reads ${plural(a.floorFootprint.files, 'file')} from node_modules) and takes ${fmtMs(S)} ms from spawn to exit, ${fmtX(a.floor.vsHello)} ${HELLO}'s ${fmtMs(H)} ms: that is what any function using the SDK starts from, and why the budget is a multiple of it rather than of ${HELLO}. A function's ratio to ${SDK_FLOOR} is therefore what its own code adds on top of the SDK: parsing its bundle (code reached only through \`import()\` is parsed too, e.g. JSONata's 80 KB) and evaluating its top level: zod and the request schemas built at module scope, middy, the Powertools modules it uses (idempotency and its JMESPath on v2 writes).`,
  );
  if (fastestSdk) parts.push(`The lightest function with the SDK, ${fastestSdk.bundle.name}, is ${fmtX(fastestSdk.vsFloor)} ${SDK_FLOOR}.`);
  parts.push(
    `The slowest are ${slowest.map((r) => `${r.bundle.name} (${fmtX(r.vsFloor)} ${SDK_FLOOR}, ${fmtX(r.vsHello)} ${HELLO}; ${fmtKb(r.bundle.bytes)} KB, of which SDK ${fmtKb(r.bundle.sdkBytes)} KB; largest other parts ${largestOwn(r.bundle, 3)})`).join(', ')}.`,
  );
  return `**What the load time is made of.** ${parts.join(' ')}`;
}

/** What imports left running, beyond what hello-world leaves: network is a finding, file reads are the SDK's config loading. */
function leftRunningLines(a: LoadTimes): string[] {
  const lines: string[] = [];
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
  lines.push(
    network
      ? `**Network at import:** ${[...network].join(', ')} left a socket or DNS lookup active right after the import (\`process.getActiveResourcesInfo()\`); loading those modules reaches for the network.`
      : 'No import left a socket or DNS lookup active (checked with `process.getActiveResourcesInfo()` right after each import), so no module makes a network call when loaded.',
  );
  const files = leftovers.get('file');
  if (files) {
    const who = [...new Set([...files].map((f) => f.split(' ')[0]))];
    lines.push(
      `Left running after the import, not network: file reads in ${who.length === checked.length ? `every function and ${SDK_FLOOR}` : who.join(', ')}. These construct an AWS SDK client at module scope, and its constructor starts reading the shared config files (\`~/.aws/config\`, \`~/.aws/credentials\`) asynchronously; that I/O is outside the import-only interval but inside the whole-process time, since the process exits only once it has finished.`,
    );
  }
  const others = [...leftovers].filter(([kind]) => kind !== 'network' && kind !== 'file');
  if (others.length) lines.push(`Also left running: ${others.map(([kind, set]) => `${kind}: ${[...set].join(', ')}`).join('; ')}.`);
  return lines;
}

export function renderLoadTimeSection(a: LoadTimes, comparison: Comparison): string[] {
  const { lines, out } = lineWriter();
  const fromAssembly = a.functions.filter((r) => r.file !== r.bundle.outfile).length;
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
  for (const line of comparisonLines(comparison, a)) out(line);
  out();
  for (const line of firstUseLines(a)) out(line);
  out();
  out(
    `**Why the whole process.** A Lambda cold start is the runtime's own start plus the init phase, which is mostly loading the handler module. The import-only interval of ${HELLO} is ${fmtMs(a.hello.load.importOnly.median)} ms, so a ratio with that as the denominator measures nothing useful (a few milliseconds of anything becomes a large multiple). The whole-process time puts the process start (standing in for the runtime's start) in both numerator and denominator, so the ratio says how much a function's module load adds to a cold start. The import-only median stays as a column for context.`,
  );
  out();
  for (const line of leftRunningLines(a)) out(line);
  out();
  out(
    `**How measured.** Each sample is a fresh \`node\` process (the Node running the bench, ${process.version}, with a clean environment: no \`NODE_OPTIONS\`, no tsx) running a small loader that defines a stand-in for the \`awslambda\` global the Lambda runtime provides (a response-streaming handler calls \`awslambda.streamifyResponse\` at module scope), then does \`await import(<bundle file URL>)\`, checks that the module exports a \`handler\` function, prints, and is left to exit on its own when its event loop drains (no \`process.exit()\`). The whole-process time, the budgeted figure, is measured by the bench around \`spawnSync\`: spawn, Node start-up, loader, import (reading, parsing, linking and evaluating the bundle's top level, the bundled AWS SDK included), whatever the import left pending, and exit; the cost of the spawn itself is the same for every bundle. The import-only time is \`performance.now()\` taken in the child immediately before and after the \`await import()\`. The environment holds harmless values (\`TABLE_NAME\`, \`AWS_REGION\`, dummy credentials, endpoints on a closed local port); handlers create their clients without connecting. There are ${a.runs} recorded rounds after one unrecorded warm-up round; every round loads every bundle (functions, both baselines, the first-use bundles and the old-client comparison${fromAssembly ? ", and section 9's deployed bundles that are not byte-identical to a function's" : ''}) once, in a freshly shuffled order, so the baselines share the machine's drift. The table gives medians per bundle and their ratios to the baselines' medians.${fromAssembly ? ` ${fromAssembly} of the ${a.functions.length} functions' bundles are byte-identical (SHA-256) to their asset in the cloud assembly of section 9, so each of those is loaded once, from the assembly's folder, and the series serves both sections.` : ''} Lambda's own runtime start (its runtime client on top of Node 22) is not reproduced here.`,
  );
  out();
  return lines;
}
