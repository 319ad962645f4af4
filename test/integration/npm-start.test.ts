import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test, vi } from 'vitest';
import { freePort } from '#local/emulators.js';
import { REPO_ROOT } from '#local/handlers.js';

/**
 * `npm start` as a user runs it. Against the run's shared emulators (as with
 * DYNAMODB_ENDPOINT / SQS_ENDPOINT) and a fresh table, so the demo account
 * is created; the java check runs the real DynamoDB Local path.
 */
function start(
  env: NodeJS.ProcessEnv,
  command: [string, string[]] = ['npm', ['start']],
): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(command[0], command[1], { cwd: REPO_ROOT, env: { ...process.env, NODE_NO_WARNINGS: '1', ...env }, detached: true });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function waitFor(predicate: () => boolean, timeoutMs: number): Promise<void> {
  await vi.waitFor(() => assert.ok(predicate(), 'timed out'), { timeout: timeoutMs, interval: 100 });
}

describe('npm start', () => {
  test('serves /healthz, creates and prints a demo account whose token works, and stops on Ctrl-C', async () => {
    const port = await freePort();
    const run = start({ PORT: String(port), TABLE_NAME: `start-${Date.now()}` });
    try {
      await waitFor(() => run.output().includes('Press Ctrl-C to stop.'), 60_000);
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      assert.deepEqual(await health.json(), { status: 'ok' });
      const token = /token:\s+(wfs_\S+)/.exec(run.output())?.[1];
      assert.ok(token, run.output());
      assert.match(run.output(), /email:\s+demo@example\.com/);
      assert.match(run.output(), /curl -s http:\/\/127\.0\.0\.1:\d+\/v1\/api-tokens -H "Authorization: Bearer wfs_/);
      const list = await fetch(`http://127.0.0.1:${port}/v1/api-tokens`, { headers: { Authorization: `Bearer ${token}` } });
      assert.equal(list.status, 200);
      const password = /password:\s+(\S+)/.exec(run.output())?.[1];
      const login = await fetch(`http://127.0.0.1:${port}/v1/auth/login`, {
        method: 'POST',
        body: JSON.stringify({ email: 'demo@example.com', password }),
      });
      assert.equal(login.status, 200);
      // The printed console and reference addresses answer their pages.
      for (const [label, path] of [
        ['Console:', '/'],
        ['API reference:', '/docs'],
      ] as const) {
        assert.match(run.output(), new RegExp(`${label}\\s+http://127\\.0\\.0\\.1:${port}${path} `));
        const page = await fetch(`http://127.0.0.1:${port}${path}`);
        assert.equal(page.status, 200, path);
        assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
      }
    } finally {
      // Ctrl-C in a terminal signals the whole process group: npm, tsx and the service.
      process.kill(-run.child.pid!, 'SIGINT');
    }
    await run.exited;
    await waitFor(() => run.output().includes('SIGINT: stopping the local stack'), 10_000);
    const refused = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      () => false,
      () => true,
    );
    assert.ok(refused, 'the gateway no longer listens');
  });

  test('a port in use is one clear sentence and a non-zero exit', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
    const port = (blocker.address() as { port: number }).port;
    try {
      const run = start({ PORT: String(port) });
      const code = await run.exited;
      assert.notEqual(code, 0);
      assert.match(run.output(), new RegExp(`Port ${port} is already in use`));
      assert.doesNotMatch(run.output(), /\n\s+at /, 'no stack trace');
    } finally {
      blocker.close();
    }
  });

  test('a missing java is one clear sentence and a non-zero exit', async () => {
    const port = await freePort();
    // A PATH holding only node: what `npm start` runs, on a machine without java.
    const bin = mkdtempSync(join(tmpdir(), 'no-java-'));
    symlinkSync(process.execPath, join(bin, 'node'));
    const run = start({ PORT: String(port), DYNAMODB_ENDPOINT: '', PATH: bin, JAVA_HOME: '' }, [process.execPath, ['--import', 'tsx', 'lib/local/start.ts']]);
    const code = await run.exited;
    assert.notEqual(code, 0);
    assert.match(run.output(), /no `java` command was found/);
    assert.doesNotMatch(run.output(), /\n\s+at /, 'no stack trace');
  });
});
