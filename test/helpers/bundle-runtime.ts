import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { BundleRuntime, type FunctionEnvironment } from '#local/synth/bundle-runtime.js';

/**
 * Asset folders in a temporary directory, as cdk.out holds them (each an
 * `index.mjs` of the given code), and the runtimes and servers a test
 * starts over them, all ended after each test. `logs` collects what the
 * functions wrote.
 */
export function bundleFixture(assets: Record<string, string>) {
  const root = mkdtempSync(join(tmpdir(), 'bundle-runtime-'));
  const logs: string[] = [];
  const runtimes: BundleRuntime[] = [];
  const servers: Server[] = [];
  beforeAll(() => {
    for (const [name, code] of Object.entries(assets)) {
      mkdirSync(join(root, name));
      writeFileSync(join(root, name, 'index.mjs'), code);
    }
  });
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((runtime) => runtime.stop()));
    for (const server of servers.splice(0)) server.close();
    logs.length = 0;
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  return {
    root,
    logs,
    runtime(asset: string, fn: Partial<FunctionEnvironment> = {}, maxEnvironments?: number): BundleRuntime {
      const base = { functionName: `fn-${asset}`, assetDir: join(root, asset), handler: 'index.handler', timeoutSeconds: 10, memoryMb: 256, environment: {} };
      const started = new BundleRuntime({ ...base, ...fn }, { maxEnvironments, onLog: (line) => logs.push(line) });
      runtimes.push(started);
      return started;
    },
    async serve(listener: RequestListener): Promise<string> {
      const server = createServer(listener);
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
  };
}

export async function waitFor(check: () => boolean, what: string, ms = 3000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
