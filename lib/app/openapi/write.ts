// `npm run openapi`: regenerates lib/app/openapi/generated.ts after a schema or a description changes.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GENERATED_PATH, generatedModuleSource } from './generate.js';

const target = fileURLToPath(new URL(`../../../${GENERATED_PATH}`, import.meta.url));
writeFileSync(target, generatedModuleSource());
console.log(`Wrote ${GENERATED_PATH}`);
