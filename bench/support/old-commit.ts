/**
 * The sources of the old-client comparison (bench/benchmarks/old-client.ts):
 * the hand-written client the AWS SDK clients replaced,
 * lib/aws/json-client.ts (the services' JSON protocol, SigV4 by a small
 * signing package), last present in commit c4bcf78.
 *
 * The sources are taken from git at bench time, read-only: `git archive` of
 * that commit's lib/ and functions/ into the run's scratch directory under
 * .bench/ (git-ignored). Unlike `git worktree add`, nothing is registered in
 * .git, so an interrupted run leaves nothing to clean up but the scratch
 * directory. Everything but the signing package resolves from this
 * checkout's node_modules, which hold the same versions c4bcf78 locked. The
 * signing package, no longer a dependency, is found as the bare import of
 * the old json-client.ts that this checkout does not have, and taken at the
 * version c4bcf78's package-lock.json names: from node_modules if someone has
 * added it back, otherwise with `npm pack` from npm's local cache
 * (`--offline`) or, failing that, the registry; the tarball's sha512 must
 * match that lock's `integrity`.
 */

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { installedVersion, REPO_ROOT } from './repo.js';

export const OLD_CLIENT_COMMIT = 'c4bcf78';
/** The old clients alone, built at module scope. */
export const OLD_CLIENT = 'old-json-client';
/** One real function as it was at that commit, against the same function now. */
export const OLD_FUNCTION = { route: 'WorkflowsGet', entry: 'functions/workflows/get.ts' };
export const oldFunctionName = `${OLD_FUNCTION.route}@${OLD_CLIENT_COMMIT}`;

export interface OldClientSources {
  /** Full hash of the commit the sources come from. */
  commit: string;
  /** The old client's SigV4 signing package, no longer a dependency. */
  signer: { name: string; version: string; from: string };
  /** Entry of the old-json-client bundle. */
  clientEntry: string;
  /** The old WorkflowsGet entry. */
  functionEntry: string;
  /** Where the old lib/ and functions/ were extracted. */
  dir: string;
  /** Top-level package versions in the old commit's package-lock.json. */
  locked: Record<string, string>;
}

function run(cmd: string, args: string[], cwd: string, input?: Buffer): Buffer {
  const r = spawnSync(cmd, args, { cwd, input, maxBuffer: 256 * 2 ** 20 });
  if (r.error) throw new Error(`${cmd} ${args.join(' ')}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr.toString().trim().split('\n').slice(-3).join(' ')}`);
  return r.stdout;
}

type Lock = { packages: Record<string, { version?: string; integrity?: string }> };

/** The bare import of the old json-client.ts that this checkout's node_modules lacks: its signing package. */
function signerName(dir: string): string {
  const source = readFileSync(join(dir, 'lib/aws/json-client.ts'), 'utf8');
  const bare = [...source.matchAll(/from '([^.'][^']*)'/g)].map((m) => m[1]!);
  const missing = bare.filter((name) => !existsSync(join(REPO_ROOT, 'node_modules', name, 'package.json')));
  if (missing.length !== 1) throw new Error(`expected one package of the old json-client.ts missing here, found ${missing.join(', ') || 'none'}`);
  return missing[0]!;
}

/** Gets the signing package at the version the old commit locked into `<dir>/node_modules/<name>`, unless node_modules has it already. */
function signer(commit: string, lock: Lock, dir: string): OldClientSources['signer'] {
  const name = signerName(dir);
  const locked = lock.packages[`node_modules/${name}`];
  if (!locked?.version || !locked.integrity) throw new Error(`${name} is not in ${commit}'s package-lock.json`);
  const version = locked.version;

  if (installedVersion(name) === version) return { name, version, from: 'node_modules' };

  const packDir = join(dir, 'pack');
  mkdirSync(packDir, { recursive: true });
  const pack = (mode: string) => run('npm', ['pack', `${name}@${version}`, mode, '--pack-destination', packDir, '--loglevel', 'error'], packDir);
  let from = "npm's local cache (npm pack --offline)";
  try {
    pack('--offline');
  } catch {
    from = 'the npm registry (npm pack)';
    pack('--prefer-offline');
  }
  const tarball = readdirSync(packDir).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error('npm pack wrote no tarball');
  const bytes = readFileSync(join(packDir, tarball));
  const [algorithm, expected] = locked.integrity.split('-', 2) as [string, string];
  const actual = createHash(algorithm).update(bytes).digest('base64');
  if (actual !== expected) throw new Error(`${name} ${version}: tarball ${algorithm} ${actual} does not match ${commit}'s lock (${expected})`);
  const target = join(dir, 'node_modules', name);
  mkdirSync(target, { recursive: true });
  run('tar', ['-xzf', join(packDir, tarball), '-C', target, '--strip-components=1'], dir);
  return { name, version, from };
}

/**
 * Extracts the old sources into `<workDir>/<commit>/` and writes the entry of
 * the old-json-client bundle. Throws, with the reason, if that cannot be done.
 */
export function prepareOldClient(workDir: string): OldClientSources {
  const commit = run('git', ['rev-parse', '--verify', `${OLD_CLIENT_COMMIT}^{commit}`], REPO_ROOT)
    .toString()
    .trim();
  const dir = join(workDir, OLD_CLIENT_COMMIT);
  mkdirSync(dir, { recursive: true });
  run('tar', ['-x', '-C', dir], dir, run('git', ['archive', '--format=tar', commit, 'lib', 'functions'], REPO_ROOT));
  for (const file of ['lib/aws/json-client.ts', 'lib/data/client.ts', 'lib/data/document-db.ts', 'lib/engine/node-queue.ts', OLD_FUNCTION.entry]) {
    if (!existsSync(join(dir, file))) throw new Error(`${file} is not in ${OLD_CLIENT_COMMIT}`);
  }
  const lock = JSON.parse(run('git', ['show', `${commit}:package-lock.json`], REPO_ROOT).toString()) as Lock;
  const signing = signer(commit, lock, dir);
  const locked: Record<string, string> = {};
  for (const [key, info] of Object.entries(lock.packages)) {
    const name = key.match(/^node_modules\/((?:@[^/]+\/)?[^/]+)$/)?.[1];
    if (name && info.version) locked[name] = info.version;
  }

  // What lib/data/client.ts's documentClient() and lib/engine/node-queue.ts's sqs() built on first use, built here at module scope.
  const clientEntry = join(dir, `${OLD_CLIENT}.ts`);
  writeFileSync(
    clientEntry,
    [
      "import { localCredentials } from './lib/aws/credentials.js';",
      "import { jsonClient } from './lib/aws/json-client.js';",
      "import { serviceEnv } from './lib/config/env.js';",
      "import { createDocumentDb } from './lib/data/client.js';",
      '',
      'const documentDb = createDocumentDb();',
      'const sqs = jsonClient({',
      "  service: 'sqs',",
      "  targetPrefix: 'AmazonSQS',",
      '  region: serviceEnv.region,',
      '  endpoint: serviceEnv.sqsEndpoint,',
      '  credentials: serviceEnv.sqsEndpoint ? localCredentials : undefined,',
      '});',
      '',
      "export const handler = async () => ({ statusCode: 200, body: typeof documentDb.get + ' ' + typeof sqs });",
      '',
    ].join('\n'),
  );
  return { commit, signer: signing, clientEntry, functionEntry: join(dir, OLD_FUNCTION.entry), dir, locked };
}

/**
 * How the old function's own code differs from today's: the repository
 * files only the old bundle contains, only the new one, and those in both
 * whose text changed (old text from the extracted tree, new from the
 * working tree). `oldFiles` and `newFiles` are metafile paths (BundleResult.ownFiles).
 */
export function ownCodeDiff(sources: OldClientSources, oldFiles: string[], newFiles: string[]): { onlyOld: string[]; onlyNew: string[]; changed: string[] } {
  const oldPrefix = `${relative(REPO_ROOT, sources.dir).split(sep).join('/')}/`;
  const before = oldFiles.filter((f) => f.startsWith(oldPrefix)).map((f) => f.slice(oldPrefix.length));
  const text = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : undefined);
  return {
    onlyOld: before.filter((f) => !newFiles.includes(f)),
    onlyNew: newFiles.filter((f) => !before.includes(f)),
    changed: before.filter((f) => newFiles.includes(f) && text(join(sources.dir, f)) !== text(join(REPO_ROOT, f))),
  };
}

/** Packages the old bundles contain whose installed version (this checkout's node_modules) is not the one the old commit locked. */
export function versionDrift(sources: OldClientSources, packages: string[]): Array<{ name: string; locked?: string; installed?: string }> {
  return [...new Set(packages)]
    .filter((name) => name !== '(own code)' && name !== sources.signer.name)
    .map((name) => ({ name, locked: sources.locked[name], installed: installedVersion(name) }))
    .filter((p) => p.locked !== p.installed);
}
