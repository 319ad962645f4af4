import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, version as esbuildVersion } from 'esbuild';

export { esbuildVersion };

import { ESM_REQUIRE_BANNER, EXTERNAL_MODULES } from '../infra/bundling.js';

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

/**
 * Bundles one entry exactly as the CDK NodejsFunction does for the stack:
 * minified ESM for node22, `module` before `main`, the createRequire banner,
 * an external source map, and the stack's external modules (infra/bundling.ts;
 * none today, so the AWS SDK is bundled like everything else).
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
    external: EXTERNAL_MODULES,
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
    [
      ...new Set((output?.imports ?? []).filter((i) => i.external && !isBuiltin(i.path) && (i.kind === 'dynamic-import') === dynamic).map((i) => i.path)),
    ].sort();

  // What the entry reaches through static imports is evaluated at init; what only an `import()` reaches, on first use.
  const inputs = result.metafile.inputs;
  const atInit = new Set<string>();
  const stack = Object.keys(inputs).filter((input) => resolve(repoRoot, input) === resolve(target.entry));
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

/** The smallest possible handler, bundled the same way: the baseline for every ratio. */
export function writeHelloWorldEntry(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const entry = join(dir, 'hello-world.ts');
  writeFileSync(entry, "export const handler = async () => ({ statusCode: 200, body: 'ok' });\n");
  return entry;
}

/**
 * The floor every function stands on: the clients lib/platform/aws/clients.ts builds
 * for them, a DynamoDB document client and an SQS client, constructed at
 * module scope with the same settings, and nothing else. Bundled like the
 * functions (the stack's externals: none), so the SDK is in the bundle.
 */
export const SDK_FLOOR_SOURCE = (repoRoot: string): string =>
  [
    `import { createDynamoDb, createSqs } from ${JSON.stringify(join(repoRoot, 'lib/platform/aws/clients.ts'))};`,
    '',
    'const dynamoDb = createDynamoDb();',
    'const sqs = createSqs();',
    '',
    "export const handler = async () => ({ statusCode: 200, body: typeof dynamoDb.send + ' ' + typeof sqs.send });",
    '',
  ].join('\n');

export function writeSdkFloorEntry(dir: string, repoRoot: string): string {
  mkdirSync(dir, { recursive: true });
  const entry = join(dir, 'sdk-floor.ts');
  writeFileSync(entry, SDK_FLOOR_SOURCE(repoRoot));
  return entry;
}

export const displayPath = (repoRoot: string, file: string): string => relative(repoRoot, file) || file;

/**
 * What a function loads on first use rather than at init, each as a bundle
 * that does at module scope what that first use does, so its load time over
 * its base (hello-world, or sdk-floor where the function has the SDK's core
 * loaded already) is what the first invocation needing it pays on top.
 */
export const FIRST_USE: Array<{ name: string; trigger: string; who: string; base: 'hello-world' | 'sdk-floor'; source: (repoRoot: string) => string }> = [
  {
    name: 'first-use:jsonata',
    trigger: 'the first JSONata expression (compiled or evaluated)',
    who: 'WorkflowVersionsCreate, worker:node-tasks',
    base: 'hello-world',
    source: () => "import jsonata from 'jsonata';\nconst e = jsonata('$sum([1, 2])');\nexport const handler = async () => e.evaluate({});\n",
  },
  {
    name: 'first-use:http-node',
    trigger: 'the first `http` node',
    who: 'worker:node-tasks',
    base: 'hello-world',
    source: (root) =>
      `import { httpNode } from ${JSON.stringify(join(root, 'lib/execution/nodes/http.ts'))};\nexport const handler = async () => typeof httpNode;\n`,
  },
  {
    name: 'first-use:logger',
    trigger: 'the first log line (an unhandled error; a closed stream)',
    who: 'every HTTP function',
    base: 'hello-world',
    source: () =>
      "import { Logger } from '@aws-lambda-powertools/logger';\nconst l = new Logger({ serviceName: 'bench' });\nexport const handler = async () => typeof l;\n",
  },
  {
    name: 'first-use:openai',
    trigger: 'the first OpenAI-compatible model call',
    who: 'worker:agent-tasks',
    base: 'hello-world',
    // As lib/models/openai.ts builds it.
    source: () =>
      "import OpenAI from 'openai';\nconst c = new OpenAI({ apiKey: 'bench', maxRetries: 0 });\nexport const handler = async () => typeof c.chat;\n",
  },
  {
    // The agent worker has the SDK's core loaded with its DynamoDB and SQS clients: what Bedrock adds is measured over sdk-floor.
    name: 'first-use:bedrock',
    trigger: 'the first Bedrock model call',
    who: 'worker:agent-tasks',
    base: 'sdk-floor',
    source: (root) =>
      [
        `import { createDynamoDb, createSqs } from ${JSON.stringify(join(root, 'lib/platform/aws/clients.ts'))};`,
        "import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';",
        // As lib/models/bedrock.ts builds it.
        'const clients = [createDynamoDb(), createSqs(), new BedrockRuntimeClient({ region: process.env.AWS_REGION })];',
        "export const handler = async () => clients.map((c) => typeof c.send).join(' ');",
        '',
      ].join('\n'),
  },
];

export function writeFirstUseEntry(dir: string, item: (typeof FIRST_USE)[number], repoRoot: string): string {
  mkdirSync(dir, { recursive: true });
  const entry = join(dir, `${item.name.replace(/[^A-Za-z0-9_-]/g, '_')}.ts`);
  writeFileSync(entry, item.source(repoRoot));
  return entry;
}
