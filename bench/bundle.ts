import { build, version as esbuildVersion } from 'esbuild';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';

export { esbuildVersion };

/** The NodejsFunction banner: lets bundled CommonJS dependencies `require` in an ES module. */
export const ESM_REQUIRE_BANNER = "import { createRequire } from 'module';const require = createRequire(import.meta.url);";

export interface BundleTarget {
  /** Route id, `worker:<queue>` / `dlq-worker:<queue>`, or `hello-world`. */
  name: string;
  kind: 'route' | 'worker' | 'baseline';
  /** Absolute path of the entry source. */
  entry: string;
}

export interface BundleResult extends BundleTarget {
  /** The `.mjs` bundle (the external `.map` beside it is not counted). */
  outfile: string;
  bytes: number;
  gzipBytes: number;
  /** Bytes in the output per package (`(own code)` for repository sources), largest first. */
  contributors: Array<{ name: string; bytes: number }>;
}

function packageOf(input: string): string {
  const parts = input.split(/[\\/]/);
  const i = parts.lastIndexOf('node_modules');
  if (i < 0) return '(own code)';
  const first = parts[i + 1] ?? '?';
  return first.startsWith('@') ? `${first}/${parts[i + 2] ?? '?'}` : first;
}

/**
 * Bundles one entry exactly as the CDK NodejsFunction does for the stack:
 * minified ESM for node22, `module` before `main`, the createRequire banner,
 * an external source map, and the AWS SDK bundled rather than taken from the
 * runtime.
 */
export async function bundle(target: BundleTarget, outDir: string, repoRoot: string): Promise<BundleResult> {
  const dir = join(outDir, target.name.replace(/[^A-Za-z0-9_-]/g, '_'));
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, 'index.mjs');
  const result = await build({
    absWorkingDir: repoRoot,
    entryPoints: [target.entry],
    outfile,
    bundle: true,
    minify: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    mainFields: ['module', 'main'],
    banner: { js: ESM_REQUIRE_BANNER },
    sourcemap: 'external',
    external: [],
    metafile: true,
    logLevel: 'silent',
  });
  const output = Object.entries(result.metafile.outputs).find(([file]) => resolve(repoRoot, file) === outfile)?.[1];
  const perPackage = new Map<string, number>();
  for (const [input, info] of Object.entries(output?.inputs ?? {})) {
    const name = packageOf(input);
    perPackage.set(name, (perPackage.get(name) ?? 0) + info.bytesInOutput);
  }
  return {
    ...target,
    outfile,
    bytes: statSync(outfile).size,
    gzipBytes: gzipSync(readFileSync(outfile)).length,
    contributors: [...perPackage].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes),
  };
}

/** The smallest possible handler, bundled the same way: the baseline for every ratio. */
export function writeHelloWorldEntry(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const entry = join(dir, 'hello-world.ts');
  writeFileSync(entry, "export const handler = async () => ({ statusCode: 200, body: 'ok' });\n");
  return entry;
}

export const displayPath = (repoRoot: string, file: string): string => relative(repoRoot, file) || file;
