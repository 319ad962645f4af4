import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** CloudFormation refuses more than 500 resources in a stack; ours keep a fifth of that free. */
export const RESOURCE_BUDGET = 400;

interface Template {
  Resources?: Record<string, { Type: string; Metadata?: Record<string, unknown> }>;
}

/** Every stack of a cloud assembly, nested ones included, by construct path, with its resource count. */
export function resourceCounts(assemblyDir: string): { stack: string; resources: number; types: Record<string, number> }[] {
  const manifest = JSON.parse(readFileSync(join(assemblyDir, 'manifest.json'), 'utf8')) as {
    artifacts?: Record<string, { type: string; displayName?: string; properties?: { templateFile?: string } }>;
  };
  const out: { stack: string; resources: number; types: Record<string, number> }[] = [];
  const visit = (file: string, path: string) => {
    const template = JSON.parse(readFileSync(join(assemblyDir, file), 'utf8')) as Template;
    const resources = Object.values(template.Resources ?? {});
    const types: Record<string, number> = {};
    for (const r of resources) types[r.Type] = (types[r.Type] ?? 0) + 1;
    out.push({ stack: path, resources: resources.length, types });
    for (const [id, r] of Object.entries(template.Resources ?? {})) {
      const nested = r.Metadata?.['aws:asset:path'];
      if (r.Type === 'AWS::CloudFormation::Stack' && typeof nested === 'string' && existsSync(join(assemblyDir, nested))) {
        visit(nested, `${path}/${id.replace(/NestedStack.*$/, '')}`);
      }
    }
  };
  for (const [id, artifact] of Object.entries(manifest.artifacts ?? {})) {
    if (artifact.type === 'aws:cloudformation:stack' && artifact.properties?.templateFile) visit(artifact.properties.templateFile, artifact.displayName ?? id);
  }
  return out;
}

/** `npm run synth`'s last step: print every stack's count against the budget; exit 1 past it. */
if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = resolve(process.argv[2] ?? 'cdk.out');
  const counts = resourceCounts(dir);
  const width = Math.max(...counts.map((c) => c.stack.length));
  console.log(`Resources per stack (budget ${RESOURCE_BUDGET}; CloudFormation's limit 500):`);
  for (const { stack, resources } of counts)
    console.log(`  ${stack.padEnd(width)}  ${String(resources).padStart(4)}${resources > RESOURCE_BUDGET ? '  OVER BUDGET' : ''}`);
  if (counts.some((c) => c.resources > RESOURCE_BUDGET)) process.exit(1);
}
