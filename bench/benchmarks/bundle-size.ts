import { relative, resolve } from 'node:path';
import { QUEUES } from '#app/queues.js';
import { ROUTES } from '#app/routes.js';
import { ESM_REQUIRE_BANNER, EXTERNAL_MODULES } from '../../infra/bundling.js';
import { HELLO, HELLO_WORLD_SOURCE, SDK_FLOOR, SDK_FLOOR_SOURCE } from '../support/baselines.js';
import { type BundleResult, type BundleTarget, bundle, bundleSource } from '../support/bundling.js';
import { budgetCount, fmtKb, kb, lineWriter, log, mark, passFail } from '../support/format.js';
import { REPO_ROOT } from '../support/repo.js';

/** Section 1: every function bundled as the stack bundles it, against a size budget. */

export const SIZE_BUDGET_KB = 750;

export interface BundleSizes {
  functions: BundleResult[];
  hello: BundleResult;
  floor: BundleResult;
}

/** `run-tasks-{small,medium,large}` for queues that share a prefix, else the names joined. */
function queuesName(names: string[]): string {
  if (names.length === 1) return names[0]!;
  let prefix = names[0]!;
  while (!names.every((n) => n.startsWith(prefix))) prefix = prefix.slice(0, -1);
  return prefix ? `${prefix}{${names.map((n) => n.slice(prefix.length)).join(',')}}` : names.join(',');
}

/**
 * Every route and queue worker the stack deploys (lib/app/routes.ts,
 * lib/app/queues.ts). Queues that share a worker (the run tasks, one queue
 * per machine size) deploy one function each from the same entry and the
 * same bundle, so the entry is bundled and timed once, named after all of them.
 */
function targets(): BundleTarget[] {
  const list: BundleTarget[] = ROUTES.map((r) => ({ name: r.id, kind: 'route', entry: resolve(REPO_ROOT, r.entry) }));
  const byEntry = new Map<string, { prefix: string; queues: string[] }>();
  for (const q of QUEUES) {
    for (const [prefix, entry] of [
      ['worker', q.worker],
      ['dlq-worker', q.deadLetterWorker],
    ] as const) {
      if (!entry) continue;
      const key = `${prefix} ${resolve(REPO_ROOT, entry)}`;
      const found = byEntry.get(key) ?? { prefix, queues: [] };
      found.queues.push(q.name);
      byEntry.set(key, found);
    }
  }
  for (const [key, { prefix, queues }] of byEntry) {
    list.push({ name: `${prefix}:${queuesName(queues)}`, kind: 'worker', entry: key.slice(prefix.length + 1) });
  }
  return list;
}

export async function measureBundleSizes(work: string): Promise<BundleSizes> {
  const list = targets();
  log(`bundling ${ROUTES.length} routes and ${list.length - ROUTES.length} queue workers (${QUEUES.length} queues) into ${work}`);
  const functions: BundleResult[] = [];
  for (const target of list) functions.push(await bundle(target, work));
  const hello = await bundleSource(HELLO, 'baseline', HELLO_WORLD_SOURCE, work);
  const floor = await bundleSource(SDK_FLOOR, 'baseline', SDK_FLOOR_SOURCE(), work);
  return { functions, hello, floor };
}

const withinBudget = (b: BundleResult): boolean => kb(b.bytes) <= SIZE_BUDGET_KB;
const failing = (s: BundleSizes): BundleResult[] => s.functions.filter((b) => !withinBudget(b));

export function bundleSizeSummary(s: BundleSizes): string {
  const over = failing(s);
  const largest = s.functions.reduce((m, b) => (b.bytes > m.bytes ? b : m));
  return `Bundle size (≤ ${SIZE_BUDGET_KB} KB): ${over.length ? `**${over.length} of ${s.functions.length} functions FAIL** (${over.map((b) => `${b.name} ${fmtKb(b.bytes)} KB`).join(', ')})` : `all ${s.functions.length} functions pass; the largest, ${largest.name}, is ${fmtKb(largest.bytes)} KB`}.`;
}

export function renderBundleSizeSection(s: BundleSizes): string[] {
  const { lines, out } = lineWriter();
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
    `| ${label} | ${entry} | ${b.bytes} | ${fmtKb(b.bytes)} | ${fmtKb(b.gzipBytes)} | ${fmtKb(b.sdkBytes)} | ${partsOf(b)} | ${budget} |`;
  for (const b of s.functions) out(sizeRow(b.name, `\`${relative(REPO_ROOT, b.entry)}\``, b, mark(withinBudget(b))));
  out(sizeRow(`_${HELLO} (baseline)_`, 'inline', s.hello, ''));
  out(sizeRow(`_${SDK_FLOOR} (baseline)_`, 'inline', s.floor, ''));
  if (QUEUES.length === 0) out('\nNo queue workers are defined yet (`QUEUES` in lib/app/queues.ts is empty), so the table lists routes only.');
  out();
  out(
    '**How measured.** Every `entry` in `ROUTES` (lib/app/routes.ts) and every `worker`/`deadLetterWorker` in `QUEUES` (lib/app/queues.ts; queues that share a worker entry, such as `run-tasks-{small,medium,large}`, one per machine size, deploy the same bundle and are listed once, named after all of them) is bundled with the esbuild API using the CDK `NodejsFunction` settings: `bundle`, `minify`, `platform: node`, `target: node22`, `format: esm`, `mainFields: [module, main]`, the banner',
  );
  out(
    `\`${ESM_REQUIRE_BANNER}\`, \`sourcemap: linked\` (CDK's \`sourceMap: true\`: the \`index.mjs.map\` beside the bundle, a \`//# sourceMappingURL\` comment at its end), and the stack's external modules (infra/bundling.ts, read by both): ${EXTERNAL_MODULES.length ? `${EXTERNAL_MODULES.map((m) => `\`${m}\``).join(', ')}, which the Lambda Node.js 22 runtime provides; everything else is bundled in` : "none, so everything, the AWS SDK included, is bundled in (the stack overrides CDK's default of leaving `@aws-sdk/*` to the runtime)"}. The size is that of the emitted \`index.mjs\` in a scratch directory under the repository's \`.bench/\`; the \`.map\` file is not counted. "Largest parts" is esbuild's metafile \`bytesInOutput\` summed per npm package, \`(own code)\` being this repository's sources; "AWS SDK KB" sums the \`@aws-sdk/*\`, \`@smithy/*\` and \`@aws-crypto/*\` packages among them (a slight undercount: small packages the SDK pulls in from elsewhere, such as mnemonist for its endpoint cache, bowser and \`@aws/lambda-invoke-store\`, which Powertools uses too, are not counted). The ${HELLO} baseline is \`export const handler = async () => ({ statusCode: 200, body: 'ok' })\`; the ${SDK_FLOOR} baseline imports \`createDynamoDb\` and \`createSqs\` from lib/platform/aws/clients.ts and builds a DynamoDB document client and an SQS client at module scope, with the settings every function's clients have, and nothing else; both are bundled exactly like the functions.`,
  );
  out();
  return lines;
}

/** One console line per bundle: name, size, verdict. */
export const bundleSizeLine = (b: BundleResult, verdict: string): string => `  ${b.name.padEnd(26)} ${fmtKb(b.bytes).padStart(7)} KB  ${verdict}`;

export function bundleSizeConsoleLines(s: BundleSizes): string[] {
  return [
    `\nBundle size (budget ≤ ${SIZE_BUDGET_KB} KB):`,
    ...s.functions.map((b) => bundleSizeLine(b, passFail(withinBudget(b)))),
    bundleSizeLine(s.hello, '(baseline)'),
    bundleSizeLine(s.floor, '(baseline)'),
  ];
}

export const bundleSizeBudget = (s: BundleSizes): string => `  bundle size   ${budgetCount(failing(s).length, s.functions.length)}`;
