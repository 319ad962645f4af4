import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'vitest';
import { generatedSources, REPOSITORY_ROOT } from '../../clients/typescript/scripts/sources.js';

// The typed client's generated files (clients/typescript/src/schema.ts, idempotent-operations.ts) are
// committed; they must be what the current OpenAPI document generates.
test('the typed client is generated from the current OpenAPI document', { timeout: 60_000 }, async () => {
  for (const [path, source] of Object.entries(await generatedSources())) {
    const target = join(REPOSITORY_ROOT, path);
    const committed = existsSync(target) ? readFileSync(target, 'utf8') : undefined;
    assert.ok(committed === source, `${path} is not what the OpenAPI document generates: run npm run client:generate`);
  }
});

test("the package's and the repository's README show examples/quickstart.ts, which the integration test runs", () => {
  const quickstart = readFileSync(join(REPOSITORY_ROOT, 'clients/typescript/examples/quickstart.ts'), 'utf8');
  const code = quickstart.slice(quickstart.indexOf('\nconst ') + 1);
  for (const path of ['clients/typescript/README.md', 'README.md']) {
    const example = /```ts\n([\s\S]*?)```/.exec(readFileSync(join(REPOSITORY_ROOT, path), 'utf8'))?.[1];
    assert.equal(example, code, `the first ts block of ${path} is the code of examples/quickstart.ts after its imports`);
  }
});
