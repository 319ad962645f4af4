// `npm run client:generate`: rewrites the client's generated files (src/schema.ts, src/idempotent-operations.ts)
// from the service's OpenAPI document. Run it after `npm run openapi` changes the document.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generatedSources, REPOSITORY_ROOT } from './sources.js';

for (const [path, source] of Object.entries(await generatedSources())) {
  const target = join(REPOSITORY_ROOT, path);
  if (existsSync(target) && readFileSync(target, 'utf8') === source) continue;
  writeFileSync(target, source);
  console.log(`Wrote ${path}`);
}
