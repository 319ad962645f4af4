import { build, version as esbuildVersion } from 'esbuild';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

export { esbuildVersion };

import { ESM_REQUIRE_BANNER, EXTERNAL_MODULES } from '../infra/bundling.js';

export interface BundleTarget {
  /** Route id, `worker:<queue>` / `dlq-worker:<queue>`, a baseline name, or a context variant's name. */
  name: string;
  /** `context`: a variant measured for comparison only, never deployed. */
  kind: 'route' | 'worker' | 'baseline' | 'context';
  /** Absolute path of the entry source. */
  entry: string;
  /**
   * `deployed` (default): the stack's externals (infra/bundling.ts).
   * `sdk-external`: every `@aws-sdk/*` package left to the runtime, as for
   * the sdk-floor baseline.
   */
  externals?: 'deployed' | 'sdk-external';
}

export interface BundleResult extends BundleTarget {
  /** The `.mjs` bundle (the external `.map` beside it is not counted). */
  outfile: string;
  bytes: number;
  gzipBytes: number;
  /** Bytes in the output per package (`(own code)` for repository sources), largest first. */
  contributors: Array<{ name: string; bytes: number }>;
  /** Bare specifiers the bundle loads from the runtime at init (static imports), sorted. */
  externalImports: string[];
  /** Bare specifiers it imports from the runtime later, with `import()` (e.g. the Bedrock client on first use), sorted. */
  lazyExternalImports: string[];
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
 * an external source map, and the stack's external modules (infra/bundling.ts).
 */
export async function bundle(target: BundleTarget, outDir: string, repoRoot: string): Promise<BundleResult> {
  const externals = target.externals ?? 'deployed';
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
    external: externals === 'deployed' ? EXTERNAL_MODULES : ['@aws-sdk/*'],
    metafile: true,
    logLevel: 'silent',
  });
  const output = Object.entries(result.metafile.outputs).find(([file]) => resolve(repoRoot, file) === outfile)?.[1];
  const perPackage = new Map<string, number>();
  for (const [input, info] of Object.entries(output?.inputs ?? {})) {
    const name = packageOf(input);
    perPackage.set(name, (perPackage.get(name) ?? 0) + info.bytesInOutput);
  }
  const externalOf = (dynamic: boolean) =>
    [...new Set((output?.imports ?? []).filter((i) => i.external && !isBuiltin(i.path) && (i.kind === 'dynamic-import') === dynamic).map((i) => i.path))].sort();
  return {
    ...target,
    externals,
    externalImports: externalOf(false),
    lazyExternalImports: externalOf(true),
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

/**
 * The floor every DynamoDB-backed handler stands on: the two AWS SDK
 * packages imported and a document client constructed at module scope
 * (with the marshall options lib/data/client.ts uses), nothing else.
 * Bundled like the functions, so the SDK stays external.
 */
export function writeSdkFloorEntry(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const entry = join(dir, 'sdk-floor.ts');
  writeFileSync(
    entry,
    [
      "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';",
      "import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';",
      '',
      'const documentClient = DynamoDBDocumentClient.from(new DynamoDBClient({}), {',
      '  marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },',
      '});',
      '',
      "export const handler = async () => ({ statusCode: 200, body: typeof documentClient.send });",
      '',
    ].join('\n'),
  );
  return entry;
}

export const displayPath = (repoRoot: string, file: string): string => relative(repoRoot, file) || file;

/**
 * What a function loads on first use rather than at init, each as a bundle
 * that does at module scope what that first use does, so its load time over
 * hello-world is what the first invocation needing it pays on top.
 */
export const FIRST_USE: Array<{ name: string; trigger: string; who: string; source: (repoRoot: string) => string }> = [
  {
    name: 'first-use:jsonata',
    trigger: 'the first JSONata expression (compiled or evaluated)',
    who: 'WorkflowVersionsCreate, worker:node-tasks',
    source: () => "import jsonata from 'jsonata';\nconst e = jsonata('$sum([1, 2])');\nexport const handler = async () => e.evaluate({});\n",
  },
  {
    name: 'first-use:http-node',
    trigger: 'the first `http` node',
    who: 'worker:node-tasks',
    source: (root) => `import { httpNode } from ${JSON.stringify(join(root, 'lib/engine/nodes/http.ts'))};\nexport const handler = async () => typeof httpNode;\n`,
  },
  {
    name: 'first-use:logger',
    trigger: 'the first log line (an unhandled error; a closed stream)',
    who: 'every HTTP function',
    source: () => "import { Logger } from '@aws-lambda-powertools/logger';\nconst l = new Logger({ serviceName: 'bench' });\nexport const handler = async () => typeof l;\n",
  },
  {
    name: 'first-use:bedrock',
    trigger: 'the first Bedrock model call',
    who: 'worker:agent-tasks',
    source: () => "import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';\nconst c = new BedrockRuntimeClient({});\nexport const handler = async () => typeof c.send;\n",
  },
];

export function writeFirstUseEntry(dir: string, item: (typeof FIRST_USE)[number], repoRoot: string): string {
  mkdirSync(dir, { recursive: true });
  const entry = join(dir, `${item.name.replace(/[^A-Za-z0-9_-]/g, '_')}.ts`);
  writeFileSync(entry, item.source(repoRoot));
  return entry;
}
