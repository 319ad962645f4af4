// `npm run lint:openapi`: lints the OpenAPI document GET /openapi.json serves with the pinned
// Redocly CLI and ./redocly.yaml (`recommended`), then checks that every operation has what a
// client needs (completeness.ts). Exits non-zero on any error or fault; warnings are printed and pass. Offline: no telemetry, no update check, the CLI from node_modules (never npx).
// The linted file stays in .bench/openapi-lint/ (git-ignored), so the line numbers can be looked up.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readEnv } from '#platform/config/env.js';
import { documentFaults } from './completeness.js';
import { servedOpenApi } from './served.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TIMEOUT_MS = 120_000;

function main(): number {
  const cli = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
  const dir = join(ROOT, '.bench', 'openapi-lint');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'openapi.json');
  // Indented, so redocly's line numbers point somewhere readable; the same JSON value.
  const document = JSON.parse(servedOpenApi(readEnv().baseUrl)) as Record<string, unknown>;
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
  const result = spawnSync(process.execPath, [cli, 'lint', relative(ROOT, file), '--config', 'redocly.yaml', '--format', 'stylish'], {
    cwd: ROOT,
    stdio: 'inherit',
    timeout: TIMEOUT_MS,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  if (result.error || result.signal) {
    console.error(`redocly lint did not finish: ${result.error?.message ?? `killed by ${result.signal} after ${TIMEOUT_MS} ms`}`);
    return 1;
  }
  const faults = documentFaults(document);
  for (const fault of faults) console.error(`incomplete: ${fault}`);
  return faults.length > 0 ? 1 : (result.status ?? 1);
}

process.exitCode = main();
