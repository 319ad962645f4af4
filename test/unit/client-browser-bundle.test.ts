import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { test } from 'vitest';

// The console bundles the typed client for browsers with esbuild, from its TypeScript source
// (package.json `exports`): it must build for the browser platform, with nothing of Node.js in it.
test('the client bundles for browsers from its source, without Node.js', { timeout: 30_000 }, async () => {
  const result = await build({
    absWorkingDir: fileURLToPath(new URL('../../', import.meta.url)),
    stdin: { contents: "export * from '@workflow-service/client';", resolveDir: '.', loader: 'ts' },
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: ['es2022', 'chrome110', 'firefox115', 'safari16'],
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const inputs = Object.keys(result.metafile.inputs);
  assert.ok(inputs.includes('clients/typescript/src/index.ts'), inputs.join('\n'));
  assert.ok(!inputs.some((input) => input.startsWith('node:') || input.startsWith('lib/')), inputs.join('\n'));
  const code = result.outputFiles[0]!.text;
  assert.doesNotMatch(code, /\bBuffer\b|\brequire\(|process\.env/);
});
