import { EXTERNAL_MODULES } from '../../infra/bundling.js';
import { HELLO, SDK_FLOOR } from '../support/baselines.js';
import { type BundleResult, bundle } from '../support/bundling.js';
import { fmtKb, fmtMs, fmtX, log, moreMs } from '../support/format.js';
import {
  OLD_CLIENT,
  OLD_CLIENT_COMMIT,
  OLD_FUNCTION,
  type OldClientSources,
  oldFunctionName,
  ownCodeDiff,
  prepareOldClient,
  versionDrift,
} from '../support/old-commit.js';
import { bundleSizeLine } from './bundle-size.js';
import { type LoadRow, type LoadTimes, loadConsoleLine } from './load-time.js';

/**
 * What the AWS SDK costs a cold start against the hand-written client it
 * replaced (bench/support/old-commit.ts extracts it), measured in the
 * load-time rounds; part of section 2.
 */

export type OldClientBundles = { sources: OldClientSources; client: BundleResult; fn: BundleResult } | { skipped: string };

export interface OldClientComparison {
  sources: OldClientSources;
  /** The old clients alone, at module scope. */
  oldClient: LoadRow;
  /** WorkflowsGet as it was at the old commit. */
  oldFunction: LoadRow;
  /** WorkflowsGet now. */
  newFunction: LoadRow;
}

/** The comparison, or why it could not be made. */
export type Comparison = OldClientComparison | { skipped: string };

/** The comparison's two bundles; if the old sources cannot be had, the reason instead (the run goes on). */
export async function bundleOldClient(work: string): Promise<OldClientBundles> {
  try {
    const sources = prepareOldClient(work);
    log(`old client from ${OLD_CLIENT_COMMIT} (signing package ${sources.signer.version} from ${sources.signer.from})`);
    return {
      sources,
      client: await bundle({ name: OLD_CLIENT, kind: 'context', entry: sources.clientEntry }, work),
      fn: await bundle({ name: oldFunctionName, kind: 'context', entry: sources.functionEntry }, work),
    };
  } catch (error) {
    const skipped = error instanceof Error ? error.message : String(error);
    log(`old-client comparison skipped: ${skipped}`);
    return { skipped };
  }
}

export const oldClientBundleList = (old: OldClientBundles): BundleResult[] => ('skipped' in old ? [] : [old.client, old.fn]);

export function compareOldClient(old: OldClientBundles, a: LoadTimes): Comparison {
  if ('skipped' in old) return old;
  const newFunction = a.functions.find((r) => r.bundle.name === OLD_FUNCTION.route);
  if (!newFunction) return { skipped: `${OLD_FUNCTION.route} is no longer a route` };
  return { sources: old.sources, oldClient: a.context.get(old.client.name)!, oldFunction: a.context.get(old.fn.name)!, newFunction };
}

/** One paragraph and a table for section 2, or why it was not measured. */
export function comparisonLines(c: Comparison, a: LoadTimes): string[] {
  const title = `**What the SDK costs a cold start against the hand-written client it replaced.**`;
  if ('skipped' in c) return [`${title} Not measured in this run: ${c.skipped}.`];
  const S = a.floor;
  const O = c.oldClient;
  const d = S.load.process.median - O.load.process.median;
  const fd = c.newFunction.load.process.median - c.oldFunction.load.process.median;
  const short = c.sources.commit.slice(0, 7);
  const diff = ownCodeDiff(c.sources, c.oldFunction.bundle.ownFiles, c.newFunction.bundle.ownFiles);
  const drift = versionDrift(
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
export function comparisonSummary(c: Comparison, a: LoadTimes): string {
  if ('skipped' in c) return `SDK against the hand-written client it replaced: not measured (${c.skipped}).`;
  const S = a.floor.load.process.median;
  const O = c.oldClient.load.process.median;
  const N = c.newFunction.load.process.median;
  const P = c.oldFunction.load.process.median;
  return `SDK against the hand-written JSON client it replaced (${c.sources.commit.slice(0, 7)}): the clients alone, ${SDK_FLOOR} ${fmtKb(a.floor.bundle.bytes)} KB, ${fmtX(a.floor.vsHello)} ${HELLO} against ${OLD_CLIENT} ${fmtKb(c.oldClient.bundle.bytes)} KB, ${fmtX(c.oldClient.vsHello)}: +${fmtMs(S - O)} ms median, ${fmtX(S / O)}; ${OLD_FUNCTION.route} now against then: ${fmtKb(c.newFunction.bundle.bytes)} KB against ${fmtKb(c.oldFunction.bundle.bytes)} KB, +${fmtMs(N - P)} ms, ${fmtX(N / P)}; see section 2.`;
}

export const oldClientSizeLines = (old: OldClientBundles): string[] =>
  oldClientBundleList(old).map((b) => bundleSizeLine(b, `(context: ${OLD_CLIENT_COMMIT})`));

export const oldClientConsoleLines = (c: Comparison): string[] =>
  'skipped' in c
    ? []
    : [
        loadConsoleLine(c.oldClient.bundle.name, c.oldClient, `(context: ${OLD_CLIENT_COMMIT}'s hand-written client)`),
        loadConsoleLine(c.oldFunction.bundle.name, c.oldFunction, `(context: ${OLD_FUNCTION.route} at ${OLD_CLIENT_COMMIT})`),
      ];
