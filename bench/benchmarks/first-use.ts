import { HELLO, SDK_FLOOR } from '../support/baselines.js';
import { type BundleResult, bundleSource, repoImport } from '../support/bundling.js';
import { fmtMs, fmtX } from '../support/format.js';
import { type LoadRow, type LoadTimes, loadConsoleLine } from './load-time.js';

/**
 * What a function loads on first use rather than at init, each as a bundle
 * that does at module scope what that first use does (with the
 * repository's own loader where it exports one), so its load time over its
 * base (hello-world, or sdk-floor where the function has the SDK's core
 * loaded already) is what the first invocation needing it pays on top.
 * Part of section 2; measured in the load-time rounds.
 */
export const FIRST_USE: Array<{ name: string; trigger: string; who: string; base: typeof HELLO | typeof SDK_FLOOR; source: () => string }> = [
  {
    name: 'first-use:jsonata',
    trigger: 'the first JSONata expression (compiled or evaluated)',
    who: 'WorkflowVersionsCreate, worker:node-tasks',
    base: HELLO,
    source: () =>
      `import { loadJsonata } from ${repoImport('lib/expressions/jsonata.ts')};\nconst e = (await loadJsonata())('$sum([1, 2])');\nexport const handler = async () => e.evaluate({});\n`,
  },
  {
    name: 'first-use:http-node',
    trigger: 'the first `http` node',
    who: 'worker:node-tasks',
    base: HELLO,
    source: () => `import { httpNode } from ${repoImport('lib/execution/nodes/http.ts')};\nexport const handler = async () => typeof httpNode;\n`,
  },
  {
    name: 'first-use:logger',
    trigger: 'the first log line (an unhandled error; a closed stream)',
    who: 'every HTTP function',
    base: HELLO,
    source: () =>
      `import { logger } from ${repoImport('lib/platform/observability/logger.ts')};\nconst l = logger();\nexport const handler = async () => typeof l;\n`,
  },
  {
    name: 'first-use:mcp',
    trigger: "the first call to an MCP server (the SDK's protocol layer, its streamable HTTP transport and schemas)",
    who: 'HarnessesTools',
    base: HELLO,
    source: () =>
      `import { loadMcpSdk } from ${repoImport('lib/mcp/client.ts')};\nconst sdk = await loadMcpSdk();\nexport const handler = async () => typeof sdk.ToolsClient;\n`,
  },
  {
    // The agent worker has the SDK's core loaded with its DynamoDB and SQS clients: what Bedrock adds is measured over sdk-floor.
    name: 'first-use:bedrock',
    trigger: 'the first Bedrock model call',
    who: 'worker:agent-tasks',
    base: SDK_FLOOR,
    source: () =>
      [
        `import { createDynamoDb, createSqs } from ${repoImport('lib/platform/aws/clients.ts')};`,
        `import { bedrockClient } from ${repoImport('lib/models/bedrock.ts')};`,
        'const clients = [createDynamoDb(), createSqs(), await bedrockClient()];',
        "export const handler = async () => clients.map((c) => typeof c.send).join(' ');",
        '',
      ].join('\n'),
  },
];

export async function bundleFirstUse(work: string): Promise<BundleResult[]> {
  const bundles: BundleResult[] = [];
  for (const item of FIRST_USE) bundles.push(await bundleSource(item.name, 'context', item.source(), work));
  return bundles;
}

const rowsOf = (a: LoadTimes): Array<{ item: (typeof FIRST_USE)[number]; row: LoadRow }> =>
  FIRST_USE.flatMap((item) => {
    const row = a.context.get(item.name);
    return row ? [{ item, row }] : [];
  });

/** The deferred loads: what each adds to the first invocation that needs it. */
export function firstUseLines(a: LoadTimes): string[] {
  const H = a.hello.load.process.median;
  const baseOf = (item: (typeof FIRST_USE)[number]) => (item.base === SDK_FLOOR ? a.floor : a.hello);
  return [
    `**Loaded on first use, not at init.** A function evaluates at init what every invocation needs, and on first use what only some do. What each deferred load adds to the first invocation that needs it, measured as a bundle of its own that does the same at module scope (whole-process median minus its base's, same run; the base is ${SDK_FLOOR} where the function has the SDK's core loaded already, so only what the deferred client adds on top counts; the code is in the function's bundle either way, so reading and pre-parsing it is paid at init):`,
    '',
    `| Deferred load | Functions | When | Base | Adds (ms) | As a multiple of ${HELLO} |`,
    '|---|---|---|---|---:|---:|',
    ...rowsOf(a).map(({ item, row }) => {
      const adds = row.load.process.median - baseOf(item).load.process.median;
      return `| ${item.name.replace('first-use:', '')} | ${item.who} | ${item.trigger} | ${item.base} | ${fmtMs(adds)} | ${fmtX(adds / H)} |`;
    }),
  ];
}

export const firstUseConsoleLines = (a: LoadTimes): string[] =>
  rowsOf(a).map(({ row }) => loadConsoleLine(row.bundle.name, row, '(context: loaded on first use)'));
