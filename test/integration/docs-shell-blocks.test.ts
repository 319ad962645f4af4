/**
 * The shell blocks of README.md and of every document under docs/ that work
 * on a laptop, run as written, so that what the documents tell a reader to
 * paste stays true. A document under docs/ is run when it has a marked block,
 * so a new one needs no change here.
 *
 * The convention: a fenced block whose info string is a shell (`sh`, `bash`)
 * followed by the word `local` is run by this test:
 *
 *     ```sh local
 *     curl -s http://127.0.0.1:3000/healthz
 *     ```
 *
 * GitHub and other renderers take the first word as the language and ignore
 * the rest, so a marked block looks like any other. Mark a block when it runs
 * against a fresh local stack (`npm start`) in a few seconds, needs nothing
 * but curl, jq, openssl, node and the coreutils, and no block but the earlier
 * marked blocks of its document. Leave unmarked what needs AWS, Docker, a browser,
 * the network, or a long-running foreground server (`npm start`,
 * `npm run start:synth`, `npm run mcp:example`), and what shows syntax rather
 * than a command (`--email E`, `[--usd N]`).
 *
 * How they run: the marked blocks of one document, in order, in one
 * `bash -euo pipefail` process from the repository root, so variables carry
 * from block to block and any failing command fails its block. Before that,
 * the test starts a local stack (test/helpers/stack.ts: a gateway on a free
 * port against the run's DynamoDB Local and SQS emulator) and replaces, in the
 * blocks' text, `http://127.0.0.1:3000` with its URL and
 * `http://127.0.0.1:8808` (the example MCP server, `npm run mcp:example`, that
 * README's tour and docs/api/runs.md name) with an MCP server it serves itself; the stack allows calls to it as
 * `OUTBOUND_ALLOWED_HOSTS=127.0.0.1 OUTBOUND_ALLOW_INSECURE=true npm start`
 * would. The process gets the environment the operator CLI needs to reach
 * the stack's table (`DYNAMODB_ENDPOINT`, `TABLE_NAME`), and `BASE_URL`, the
 * service root docs/deploy.md's first-account and smoke-test blocks use.
 * Each document runs in a process of its own, so its first marked block makes
 * what the others need (most documents start with docs/examples/new-account.sh).
 * The table is shared by the run: a block that creates an account gives it a
 * unique email.
 *
 * A document fails when a block exits non-zero (the message names the
 * document, the block's line and first line, the command that failed and
 * the block's output), when it runs longer than its time limit, or when the
 * service answered 500 or a worker threw while its blocks ran. `DOCS_SHELL_BLOCKS_OUTPUT=1` prints
 * every block's output.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { REPO_ROOT } from '#local/handlers.js';
import { startMcpServer, type TestMcpServer } from '../helpers/mcp-server.js';
import { startTestStack } from '../helpers/stack.js';

const LOCAL_URL = 'http://127.0.0.1:3000';
const MCP_EXAMPLE_URL = 'http://127.0.0.1:8808';
/** Per document: the longest, docs/api/evaluations.md's, take about 10 s. */
const DOCUMENT_TIME_LIMIT_MS = 60_000;
const SHELLS = new Set(['sh', 'bash', 'shell']);

interface ShellBlock {
  /** 1-based line of the opening fence. */
  line: number;
  /** The first non-empty line of the block. */
  firstLine: string;
  text: string;
}

/** The fenced blocks whose info string is a shell followed by `local`, in document order (indented fences, as in list items, included). */
function localShellBlocks(markdown: string): ShellBlock[] {
  const blocks: ShellBlock[] = [];
  const lines = markdown.split('\n');
  let open: { fence: string; indent: number; line: number; marked: boolean; body: string[] } | undefined;
  lines.forEach((raw, index) => {
    if (!open) {
      const opening = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(raw);
      if (!opening) return;
      const words = opening[3]!.trim().split(/\s+/);
      open = {
        fence: opening[2]!,
        indent: opening[1]!.length,
        line: index + 1,
        marked: SHELLS.has(words[0]!) && words.slice(1).includes('local'),
        body: [],
      };
      return;
    }
    const closing = /^\s*(`{3,}|~{3,})\s*$/.exec(raw);
    if (closing && closing[1]![0] === open.fence[0] && closing[1]!.length >= open.fence.length) {
      if (open.marked) {
        const text = open.body.join('\n');
        blocks.push({ line: open.line, firstLine: open.body.find((l) => l.trim() !== '')?.trim() ?? '', text });
      }
      open = undefined;
      return;
    }
    // Content of a block inside a list item is indented as its fence is.
    open.body.push(raw.startsWith(' '.repeat(open.indent)) ? raw.slice(open.indent) : raw.trimStart());
  });
  return blocks;
}

/** README.md, whose tour must keep its marked blocks, and every document under docs/ that has a marked block, in path order. */
const DOCUMENTS = [
  'README.md',
  ...readdirSync(join(REPO_ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.md'))
    .map((path) => `docs/${path.split('\\').join('/')}`)
    .sort()
    .filter((document) => localShellBlocks(readFileSync(join(REPO_ROOT, document), 'utf8')).length > 0),
];

const MARK = '##docs-shell-block';
const FAILED = '##docs-shell-failed';

/**
 * Runs the blocks in one `bash -euo pipefail` process from the repository
 * root; resolves to the output of each block that ran, and rejects naming
 * the document, the block, the failing command and the block's output when
 * one fails or time runs out.
 */
async function runShellBlocks(
  document: string,
  blocks: readonly ShellBlock[],
  options: { env: NodeJS.ProcessEnv; timeoutMs: number; rewrite?: (text: string) => string },
): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'docs-blocks-'));
  const script = join(dir, 'blocks.sh');
  const rewrite = options.rewrite ?? ((text: string) => text);
  // The command that fails, and its line, as bash sees them (set -e exits right after the trap).
  const lines = ['exec 2>&1', `trap 's=$?; printf "\\n${FAILED} %s %s\\n%s\\n" "$LINENO" "$s" "$BASH_COMMAND"' ERR`];
  /** The script line where each block's text starts. */
  const starts: number[] = [];
  for (const [i, block] of blocks.entries()) {
    lines.push(`printf '\\n${MARK} %s\\n' ${i}`);
    starts.push(lines.length + 1);
    lines.push(...rewrite(block.text).split('\n'));
  }
  lines.push(`printf '\\n${MARK} end\\n'`, '');
  writeFileSync(script, lines.join('\n'));
  try {
    const child = spawn('bash', ['-euo', 'pipefail', script], { cwd: REPO_ROOT, env: options.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      // The process group: a hanging curl or loop goes too.
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    }, options.timeoutMs);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(timer);
    const failedAt = output.lastIndexOf(`\n${FAILED} `);
    const failure = failedAt === -1 ? undefined : /^\n\S+ (\d+) (\d+)\n([\s\S]*)$/.exec(output.slice(failedAt));
    if (failedAt !== -1) output = output.slice(0, failedAt);
    const outputs: string[] = [];
    let last = -1;
    for (const part of output.split(new RegExp(`\\n?${MARK} `)).slice(1)) {
      const newline = part.indexOf('\n');
      const id = part.slice(0, newline === -1 ? undefined : newline);
      if (id === 'end') break;
      last = Number(id);
      outputs[last] = newline === -1 ? '' : part.slice(newline + 1);
    }
    if (code !== 0 || timedOut) {
      const block = blocks[last];
      const where = block ? `the block at line ${block.line} ("${block.firstLine}")` : 'before its first block';
      const why = timedOut ? `did not finish within ${options.timeoutMs / 1000} s` : `exited ${code}`;
      const command =
        failure && block
          ? ` at line ${block.line + 1 + Number(failure[1]) - starts[last]!} (its last command \`${failure[3]!.trim()}\`, status ${failure[2]})`
          : '';
      const shown = (block ? (outputs[last] ?? '') : output).trimEnd();
      throw new Error(`${document}: ${where} ${why}${command}. Its output:\n${shown.split('\n').slice(-60).join('\n') || '(none)'}`);
    }
    return outputs;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the runner', () => {
  const markdown = [
    '# Doc',
    '```sh local',
    'A=one',
    '```',
    '```sh',
    'exit 7  # unmarked: never run',
    '```',
    '- item',
    '  ```bash local',
    '  # the value from the block before',
    '  test "$A" = one && echo "A is $A"',
    '  ```',
    '```js local',
    'not shell',
    '```',
    '````sh local',
    "echo '```'",
    'false | cat',
    'echo unreachable',
    '````',
  ].join('\n');

  test('finds the documents: README.md and the docs/ documents with marked blocks (docs/deploy.md among them), none twice', () => {
    assert.equal(DOCUMENTS[0], 'README.md');
    assert.ok(DOCUMENTS.includes('docs/deploy.md'), `docs/deploy.md is not among ${DOCUMENTS.join(', ')}`);
    assert.equal(new Set(DOCUMENTS).size, DOCUMENTS.length);
  });

  test('extracts marked shell blocks only, in order, with their first lines; list-item indentation removed', () => {
    const blocks = localShellBlocks(markdown);
    assert.deepEqual(
      blocks.map((b) => [b.line, b.firstLine]),
      [
        [2, 'A=one'],
        [9, '# the value from the block before'],
        [16, "echo '```'"],
      ],
    );
    assert.equal(blocks[1]!.text, '# the value from the block before\ntest "$A" = one && echo "A is $A"');
  });

  test('variables carry from block to block; a failing pipeline fails its block, named with its output', async () => {
    const blocks = localShellBlocks(markdown);
    const outputs = await runShellBlocks('doc.md', blocks.slice(0, 2), { env: process.env, timeoutMs: 10_000 });
    assert.equal(outputs[1]!.trim(), 'A is one');
    await assert.rejects(runShellBlocks('doc.md', blocks, { env: process.env, timeoutMs: 10_000 }), (error: Error) => {
      assert.match(
        error.message,
        /^doc\.md: the block at line 16 \("echo '```'"\) exited 1 at line 18 \(its last command `cat`, status 1\)\. Its output:\n```$/,
      );
      return true;
    });
  });

  test('a block that hangs is stopped at the time limit and named', async () => {
    const blocks = localShellBlocks('```sh local\necho waiting\nsleep 30\n```\n');
    await assert.rejects(
      runShellBlocks('slow.md', blocks, { env: process.env, timeoutMs: 500 }),
      /slow\.md: the block at line 1 \("echo waiting"\) did not finish within 0\.5 s\. Its output:\nwaiting/,
    );
  });
});

describe('the documents’ local shell blocks', () => {
  let stack: Awaited<ReturnType<typeof startTestStack>>;
  let mcp: TestMcpServer;
  const failures: string[] = [];
  const outbound = { OUTBOUND_ALLOWED_HOSTS: process.env.OUTBOUND_ALLOWED_HOSTS, OUTBOUND_ALLOW_INSECURE: process.env.OUTBOUND_ALLOW_INSECURE };

  beforeAll(async () => {
    const missing = ['bash', 'curl', 'jq', 'openssl'].filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
    assert.deepEqual(missing, [], `The documents' blocks need ${missing.join(', ')} on PATH (apt-get install ${missing.join(' ')}).`);
    mcp = await startMcpServer();
    // What the documents ask of `npm start` for the example MCP server; the handlers run in this process and read it per call.
    Object.assign(process.env, { OUTBOUND_ALLOWED_HOSTS: '127.0.0.1', OUTBOUND_ALLOW_INSECURE: 'true' });
    stack = await startTestStack({
      onRequest: (r) => {
        if (r.status === 500) failures.push(`${r.method} ${r.path} answered 500`);
      },
      onWorkerError: (error) => failures.push(`a worker threw: ${error instanceof Error ? error.stack : String(error)}`),
    });
  });
  afterAll(async () => {
    await stack?.stop();
    await mcp?.stop();
    for (const [name, value] of Object.entries(outbound)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  test.each(DOCUMENTS)('%s', async (document) => {
    const blocks = localShellBlocks(readFileSync(join(REPO_ROOT, document), 'utf8'));
    assert.ok(blocks.length > 0, `${document} has no \`sh local\` block: was the convention renamed?`);
    failures.length = 0;
    const started = Date.now();
    const outputs = await runShellBlocks(document, blocks, {
      timeoutMs: DOCUMENT_TIME_LIMIT_MS,
      rewrite: (text) => text.replaceAll(LOCAL_URL, stack.url).replaceAll(MCP_EXAMPLE_URL, mcp.base),
      env: {
        ...process.env,
        DYNAMODB_ENDPOINT: stack.dynamodbEndpoint,
        TABLE_NAME: stack.tableName,
        BASE_URL: stack.url,
        NODE_NO_WARNINGS: '1',
      },
    });
    if (process.env.DOCS_SHELL_BLOCKS_OUTPUT === '1') {
      for (const [i, block] of blocks.entries()) console.log(`--- ${document}:${block.line} ${block.firstLine}\n${outputs[i] ?? ''}`);
    }
    assert.deepEqual(failures, [], `${document}: the service failed while its blocks ran`);
    console.log(`${document}: ${blocks.length} local shell blocks passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });
});
