import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, version as esbuildVersion } from 'esbuild';
import { BUNDLE, ESM_REQUIRE_BANNER, EXTERNAL_MODULES } from '../../infra/bundling.js';
import { REPO_ROOT } from './repo.js';

export { esbuildVersion };

export interface BundleTarget {
  /** Route id, `worker:<queue>` / `dlq-worker:<queue>`, a baseline name, or a context variant's name. */
  name: string;
  /** `context`: a variant measured for comparison only, never deployed. */
  kind: 'route' | 'worker' | 'baseline' | 'context';
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
  /** This repository's source files in the output (metafile paths, relative to the repository root). */
  ownFiles: string[];
  /** Bytes in the output from the AWS SDK's packages (see `isAwsSdkPackage`). */
  sdkBytes: number;
  /**
   * AWS SDK clients (`@aws-sdk/client-*`, `@aws-sdk/lib-*`) bundled and
   * reachable from the entry through static imports: evaluated at init.
   */
  sdkClientsAtInit: string[];
  /** Bundled clients reachable only through an `import()`: parsed with the bundle, evaluated on first use. */
  sdkClientsOnFirstUse: string[];
  /** Bare specifiers the bundle loads from the runtime at init (static imports), sorted; empty while the stack leaves nothing external. */
  externalImports: string[];
  /** Bare specifiers it imports from the runtime later, with `import()`, sorted. */
  lazyExternalImports: string[];
}

/**
 * The AWS SDK's own packages: `@aws-sdk/*`, `@smithy/*` (its core) and
 * `@aws-crypto/*`. Small packages the SDK shares with others
 * (`@aws/lambda-invoke-store`, which Powertools uses too) or that only it
 * uses (mnemonist for the endpoint cache, bowser) are not counted, so the
 * figure is a slight undercount.
 */
export const isAwsSdkPackage = (name: string): boolean => /^@(aws-sdk|smithy|aws-crypto)\//.test(name);

function packageOf(input: string): string {
  const parts = input.split(/[\\/]/);
  const i = parts.lastIndexOf('node_modules');
  if (i < 0) return '(own code)';
  const first = parts[i + 1] ?? '?';
  return first.startsWith('@') ? `${first}/${parts[i + 2] ?? '?'}` : first;
}

const fileName = (name: string): string => name.replace(/[^A-Za-z0-9_-]/g, '_');

/**
 * Bundles one entry exactly as the CDK NodejsFunction does for the stack:
 * minified ESM for node22, `module` before `main`, the createRequire banner,
 * a linked source map, and the stack's external modules, all from
 * infra/bundling.ts, which the stack reads too (no externals today, so the
 * AWS SDK is bundled like everything else).
 */
export async function bundle(target: BundleTarget, outDir: string): Promise<BundleResult> {
  const dir = join(outDir, fileName(target.name));
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, 'index.mjs');
  const result = await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: [target.entry],
    outfile,
    bundle: true,
    minify: BUNDLE.minify,
    platform: 'node',
    target: BUNDLE.target,
    format: 'esm',
    mainFields: [...BUNDLE.mainFields],
    banner: { js: ESM_REQUIRE_BANNER },
    // Linked, as CDK's `sourceMap: true` (esbuild's `--sourcemap`): the `.map` beside the bundle and a `//# sourceMappingURL` comment at its end, so the bundle is byte for byte the deployed one.
    sourcemap: 'linked',
    external: EXTERNAL_MODULES,
    metafile: true,
    logLevel: 'silent',
  });
  const output = Object.entries(result.metafile.outputs).find(([file]) => resolve(REPO_ROOT, file) === outfile)?.[1];
  const perPackage = new Map<string, number>();
  for (const [input, info] of Object.entries(output?.inputs ?? {})) {
    const name = packageOf(input);
    perPackage.set(name, (perPackage.get(name) ?? 0) + info.bytesInOutput);
  }
  const externalOf = (dynamic: boolean) =>
    [
      ...new Set((output?.imports ?? []).filter((i) => i.external && !isBuiltin(i.path) && (i.kind === 'dynamic-import') === dynamic).map((i) => i.path)),
    ].sort();

  // What the entry reaches through static imports is evaluated at init; what only an `import()` reaches, on first use.
  const inputs = result.metafile.inputs;
  const atInit = new Set<string>();
  const stack = Object.keys(inputs).filter((input) => resolve(REPO_ROOT, input) === resolve(target.entry));
  while (stack.length) {
    const input = stack.pop()!;
    if (atInit.has(input)) continue;
    atInit.add(input);
    for (const i of inputs[input]?.imports ?? []) if (!i.external && i.kind !== 'dynamic-import' && inputs[i.path]) stack.push(i.path);
  }
  const clients = (files: string[]) => [...new Set(files.map(packageOf).filter((p) => /^@aws-sdk\/(client|lib)-/.test(p)))].sort();
  const bundled = Object.entries(output?.inputs ?? {})
    .filter(([, info]) => info.bytesInOutput > 0)
    .map(([input]) => input);
  const sdkClientsAtInit = clients(bundled.filter((f) => atInit.has(f)));
  const sdkClientsOnFirstUse = clients(bundled.filter((f) => !atInit.has(f))).filter((p) => !sdkClientsAtInit.includes(p));

  const contributors = [...perPackage].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes);
  return {
    ...target,
    externalImports: externalOf(false),
    lazyExternalImports: externalOf(true),
    sdkClientsAtInit,
    sdkClientsOnFirstUse,
    outfile,
    bytes: statSync(outfile).size,
    gzipBytes: gzipSync(readFileSync(outfile)).length,
    contributors,
    ownFiles: bundled.filter((f) => packageOf(f) === '(own code)').sort(),
    sdkBytes: contributors.filter((c) => isAwsSdkPackage(c.name)).reduce((n, c) => n + c.bytes, 0),
  };
}

/** Writes a generated entry (a baseline or a context variant) as `<dir>/<name>.ts` and returns its path. */
export function writeEntry(dir: string, name: string, source: string): string {
  mkdirSync(dir, { recursive: true });
  const entry = join(dir, `${fileName(name)}.ts`);
  writeFileSync(entry, source);
  return entry;
}

/** Bundles a generated entry written into `<outDir>/src/`. */
export const bundleSource = (name: string, kind: BundleTarget['kind'], source: string, outDir: string): Promise<BundleResult> =>
  bundle({ name, kind, entry: writeEntry(join(outDir, 'src'), name, source) }, outDir);

/** An absolute import specifier for a repository source, for generated entries. */
export const repoImport = (path: string): string => JSON.stringify(join(REPO_ROOT, path));
