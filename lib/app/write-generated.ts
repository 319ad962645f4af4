// `npm run openapi`: writes every generated module (lib/app/generate.ts) after a contract, a schema or a
// description changes, or a feature folder gets contracts or queues: the registry of features, the served
// routes, the OpenAPI document and README's price table.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatedFiles } from './generate.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
for (const [path, source] of Object.entries(await generatedFiles())) {
  const target = join(root, path);
  if (existsSync(target) && readFileSync(target, 'utf8') === source) continue;
  writeFileSync(target, source);
  console.log(`Wrote ${path}`);
}
