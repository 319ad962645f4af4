import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Series, series } from './stats.js';

/**
 * Runs in a fresh `node` process per sample: the time of the dynamic import
 * alone (parse, link, evaluate the bundle's top level), then what the import
 * left running, so a module that opened a socket or started a timer shows.
 * It does not call `process.exit()`: the process ends when its event loop
 * drains, so the whole-process time includes work the import left pending.
 */
const LOADER = `
const file = process.argv[2];
// The Lambda Node.js runtime provides the \`awslambda\` global (response
// streaming); a streaming handler calls \`awslambda.streamifyResponse\` at
// module scope, so a stand-in is defined first, outside the timed interval.
globalThis.awslambda ??= { streamifyResponse: (handler) => handler, HttpResponseStream: { from: (stream) => stream } };
const t0 = performance.now();
const mod = await import(file);
const t1 = performance.now();
const resources = typeof process.getActiveResourcesInfo === 'function' ? process.getActiveResourcesInfo() : [];
process.stdout.write(JSON.stringify({ ms: t1 - t0, handler: typeof mod.handler, resources }));
`;

/**
 * What loading a bundle pulls in from node_modules as CommonJS (a package
 * left external, such as the AWS SDK, whose packages ship `dist-cjs` as
 * their `main`): file count and bytes on disk.
 */
const FOOTPRINT = `import { createRequire } from 'node:module';
import { statSync } from 'node:fs';
await import(process.argv[2]);
const files = Object.keys(createRequire(import.meta.url).cache).filter((f) => f.includes('/node_modules/'));
process.stdout.write(JSON.stringify({ files: files.length, bytes: files.reduce((n, f) => n + statSync(f).size, 0) }));
`;

/** Harmless settings so module scope finds what it reads; nothing listens at the endpoints. */
export const LOAD_ENV: Record<string, string> = {
  TABLE_NAME: 'bench-table',
  QUEUE_PREFIX: 'bench-',
  BASE_URL: 'http://127.0.0.1:9',
  DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
  SQS_ENDPOINT: 'http://127.0.0.1:9',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  AWS_EC2_METADATA_DISABLED: 'true',
  POWERTOOLS_LOG_LEVEL: 'WARN',
  POWERTOOLS_SERVICE_NAME: 'bench',
  // Lambda runs Node 22, where the SDK has no reason to warn about the Node version.
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

export interface LoadStats {
  name: string;
  /**
   * Wall time of the whole child process, spawn to exit (Node start-up,
   * loader, import, exit), measured by the parent: the budgeted figure.
   */
  process: Series;
  /** The `await import()` alone, measured inside the child: context. */
  importOnly: Series;
  /** Active resources left after the import (socket, timer…), by kind; should be empty. */
  leftRunning: string[];
}

/** A bundle to load: `env`, when given, is set over LOAD_ENV for its processes only (e.g. a template's NODE_OPTIONS). */
export interface LoadTarget {
  name: string;
  outfile: string;
  env?: Readonly<Record<string, string>>;
}

/** `node <script> <bundle URL>` with a clean environment: nothing from tsx or NODE_OPTIONS reaches the child, unless `env` sets it. */
function runNode(script: string, file: string, env: Readonly<Record<string, string>> = {}) {
  return spawnSync(process.execPath, [script, pathToFileURL(file).href], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...LOAD_ENV, ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
}

function sampleOnce(loader: string, { name, outfile, env }: LoadTarget): { ms: number; wallMs: number; resources: string[] } {
  const started = performance.now();
  const child = runNode(loader, outfile, env);
  const wallMs = performance.now() - started;
  if (child.error) throw new Error(`${name}: loading the bundle failed: ${child.error.message}`);
  if (child.status !== 0) throw new Error(`${name}: loading the bundle exited ${child.status}:\n${child.stderr}`);
  const parsed = JSON.parse(child.stdout) as { ms: number; handler: string; resources: string[] };
  if (parsed.handler !== 'function') throw new Error(`${name}: the bundle does not export a handler function`);
  return { ms: parsed.ms, wallMs, resources: parsed.resources };
}

function shuffle<T>(items: T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

/**
 * `runs` rounds; each round loads every bundle once, in a fresh order, so
 * drift in machine load hits functions and baselines alike. One unrecorded
 * round first warms the page cache. Every sample is a fresh `node` process,
 * timed from spawn to exit (the budgeted figure) and, inside, around the
 * import alone.
 */
export function measureLoadTimes(bundles: LoadTarget[], runs: number, workDir: string): LoadStats[] {
  const duplicate = bundles.find((b, i) => bundles.findIndex((o) => o.name === b.name) !== i);
  if (duplicate) throw new Error(`measureLoadTimes: two bundles are named ${duplicate.name}`);
  const loader = join(workDir, 'loader.mjs');
  writeFileSync(loader, LOADER);
  const samples = new Map(bundles.map((b) => [b.name, [] as number[]]));
  const wall = new Map(bundles.map((b) => [b.name, [] as number[]]));
  const leftRunning = new Map(bundles.map((b) => [b.name, new Set<string>()]));
  for (let round = 0; round <= runs; round++) {
    for (const b of shuffle(bundles)) {
      const { ms, wallMs, resources } = sampleOnce(loader, b);
      if (round === 0) continue;
      samples.get(b.name)!.push(ms);
      wall.get(b.name)!.push(wallMs);
      for (const r of resources) leftRunning.get(b.name)!.add(r);
    }
  }
  return bundles.map((b) => ({
    name: b.name,
    process: series(wall.get(b.name)!),
    importOnly: series(samples.get(b.name)!),
    leftRunning: [...leftRunning.get(b.name)!],
  }));
}

/** What an active resource name says an import left running. */
export function resourceKind(name: string): 'network' | 'timer' | 'file' | 'stdio' | 'other' {
  if (/TCP|UDP|GetAddrInfo|GetNameInfo|QueryReqWrap|TLS|HTTP/i.test(name)) return 'network';
  if (/Timeout|Immediate/.test(name)) return 'timer';
  if (/^FSReq|FileHandle|StatWatcher|FSEvent/.test(name)) return 'file';
  if (/PipeWrap|TTYWrap/.test(name)) return 'stdio';
  return 'other';
}

/** Files (and their bytes on disk) loading a bundle reads from node_modules: none for a self-contained bundle. One extra, untimed process. */
export function nodeModulesFootprint(file: string, workDir: string): { files: number; bytes: number } {
  const probe = join(workDir, 'footprint.mjs');
  writeFileSync(probe, FOOTPRINT);
  const child = runNode(probe, file);
  if (child.error || child.status !== 0) throw new Error(`footprint of ${file} failed: ${child.error?.message ?? child.stderr}`);
  return JSON.parse(child.stdout) as { files: number; bytes: number };
}
