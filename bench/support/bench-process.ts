import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Running } from './local-stack.js';
import { REPO_ROOT } from './repo.js';

/**
 * The benchmarks that run a local stack do so in a process of their own
 * (bench/engine-process.ts, bench/runs-process.ts): handler modules keep
 * the clients of the first stack that loaded them, so two stacks cannot
 * share a process. The driver spawns one and reads its results as JSON
 * from a file; the process stops its emulators whatever ends it.
 */

const children = new Set<ChildProcess>();

/** Stops every bench process still running (the driver's watchdog). */
export const stopBenchProcesses = (): void => {
  for (const child of children) child.kill('SIGTERM');
};

/** Runs `bench/<script>` with `--out <work>/<name>.json` and `args`, and parses what it wrote. */
export async function runBenchProcess<T>(script: string, work: string, name: string, args: string[]): Promise<T> {
  const out = join(work, `${name}.json`);
  await new Promise<void>((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'bench', script), '--out', out, ...args], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: process.env,
    });
    children.add(child);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      children.delete(child);
      if (code === 0) resolvePromise();
      else reject(new Error(`bench/${script} exited with ${code ?? signal}`));
    });
  });
  return JSON.parse(readFileSync(out, 'utf8')) as T;
}

/** The value after `name` on the command line. */
export const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

/** In a bench process: stop DynamoDB Local (a Java process) and the rest before leaving, on a signal or after `limitMs`. */
export function guardProcess(name: string, running: Running, limitMs: number): void {
  const giveUp = (why: string) => {
    console.error(`[bench] ${name}: ${why}; stopping.`);
    setTimeout(() => process.exit(2), 5_000).unref();
    void running.stopAll().then(() => process.exit(2));
  };
  setTimeout(() => giveUp(`still running after ${limitMs / 1000} s`), limitMs).unref();
  process.once('SIGTERM', () => giveUp('SIGTERM'));
  process.once('SIGINT', () => giveUp('SIGINT'));
}

/**
 * The end of a measuring process: its results as JSON in `--out` (or on
 * stdout), exit 0; a failure printed, exit 1 (runBenchProcess reports it).
 */
export function reportResults(name: string, results: Promise<unknown>): void {
  const out = arg('--out');
  results.then(
    (value) => {
      const text = JSON.stringify(value);
      if (out) writeFileSync(out, text);
      else console.log(text);
      process.exit(0);
    },
    (error: unknown) => {
      console.error(`[bench] ${name} failed:`, error);
      process.exit(1);
    },
  );
}
