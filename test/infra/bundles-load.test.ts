import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inject, test } from 'vitest';
import { readStacks } from './assembly.js';

const run = promisify(execFile);
const assemblyDir = inject('assemblyDir');

/** Every Lambda function of the assembly: its asset's bundle, its handler export and the plain values of its environment. */
function functionsOf(dir: string) {
  return readStacks(dir).flatMap((stack) =>
    Object.entries(stack.template.Resources)
      .filter(([, r]) => r.Type === 'AWS::Lambda::Function' && typeof r.Metadata?.['aws:asset:path'] === 'string')
      .map(([id, r]) => {
        const [file, exported] = String(r.Properties?.Handler).split('.') as [string, string];
        const variables = (r.Properties?.Environment?.Variables ?? {}) as Record<string, unknown>;
        // References resolve only in a deployment; a placeholder stands in, as nothing is called at init.
        const env = Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, typeof v === 'string' ? v : `unresolved-${k}`]));
        return { name: `${stack.name}/${id}`, bundle: join(dir, r.Metadata!['aws:asset:path'], `${file}.mjs`), exported, env };
      }),
  );
}

/**
 * Each bundle as it is deployed loads in a fresh Node.js process and exports
 * its handler: what the Lambda runtime does at init. A bundle can pass every
 * test run from source and still fail here (the bundler orders its modules'
 * initialisation, and one that reads another's export before it ran throws
 * at import), which would fail every invocation of that function in AWS.
 */
test('every function bundle of the assembly loads in a fresh process and exports its handler', { timeout: 300_000 }, async () => {
  const functions = functionsOf(assemblyDir);
  assert.ok(functions.length > 50, `the assembly has its functions (${functions.length})`);
  const failures: string[] = [];
  const queue = [...functions];
  const loader = `const m = await import(process.argv[1]); if (typeof m[process.argv[2]] !== 'function') { console.error('no export ' + process.argv[2]); process.exit(3); }`;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let fn = queue.shift(); fn; fn = queue.shift()) {
        if (!existsSync(fn.bundle)) {
          failures.push(`${fn.name}: no bundle at ${fn.bundle}`);
          continue;
        }
        try {
          await run(process.execPath, ['--input-type=module', '-e', loader, `file://${fn.bundle}`, fn.exported], {
            env: { PATH: process.env.PATH, AWS_REGION: 'us-east-1', ...fn.env },
            timeout: 30_000,
          });
        } catch (error) {
          const { stderr, message } = error as { stderr?: string; message: string };
          failures.push(`${fn.name}: ${(stderr || message).split('\n').find((line) => /Error|no export/.test(line)) ?? message}`);
        }
      }
    }),
  );
  assert.deepEqual(failures, []);
});
