import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { resourceCounts } from '../../infra/resource-report.js';
import { log } from './format.js';

/**
 * The real app's cloud assembly, synthesized in-process as `cdk synth` does
 * (infra/synthesize.ts: cdk.json's context, every function bundled by CDK's
 * NodejsFunction with esbuild, cdk-nag applied), and read back: every
 * stack's resources with the construct that owns each, and every function
 * with its asset folder.
 */

export interface AssemblyResource {
  /** The stack's construct path: `WorkflowService`, `WorkflowService/Runs`, as infra/resource-report.ts names it. */
  stack: string;
  /** The construct directly under the stack that made it (`aws:cdk:path`): `RunsCreate`, `RunsCreateLogs`, `run-endedQueue`… */
  owner: string;
  type: string;
}

export interface DeployedFunction {
  stack: string;
  /** Its construct id in its stack: a route id, `Stream<route id>`, `<queue>Worker`, `<queue>DeadLetterWorker`. */
  owner: string;
  description: string;
  /** The asset folder (`aws:asset:path` of the function resource), relative to the assembly. */
  asset: string;
  /** `index.mjs` in that folder. */
  file: string;
  /** NODE_OPTIONS of the function's environment in the template, when a literal. */
  nodeOptions?: string;
}

export interface Assembly {
  dir: string;
  /** Wall time of the synthesis (bundling every function included). */
  seconds: number;
  /** infra/resource-report.ts's figures, the ones `npm run synth` prints. */
  counts: ReturnType<typeof resourceCounts>;
  resources: AssemblyResource[];
  functions: DeployedFunction[];
}

interface Template {
  Resources?: Record<string, { Type: string; Metadata?: Record<string, unknown>; Properties?: Record<string, unknown> }>;
}

/** Every template of the assembly with its stack path, nested ones included, named as infra/resource-report.ts names them. */
function templates(dir: string): Array<{ stack: string; template: Template }> {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
    artifacts?: Record<string, { type: string; displayName?: string; properties?: { templateFile?: string } }>;
  };
  const out: Array<{ stack: string; template: Template }> = [];
  const visit = (file: string, stack: string) => {
    const template = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Template;
    out.push({ stack, template });
    for (const [id, r] of Object.entries(template.Resources ?? {})) {
      const nested = r.Metadata?.['aws:asset:path'];
      if (r.Type === 'AWS::CloudFormation::Stack' && typeof nested === 'string' && existsSync(join(dir, nested)))
        visit(nested, `${stack}/${id.replace(/NestedStack.*$/, '')}`);
    }
  };
  for (const [id, artifact] of Object.entries(manifest.artifacts ?? {})) {
    if (artifact.type === 'aws:cloudformation:stack' && artifact.properties?.templateFile) visit(artifact.properties.templateFile, artifact.displayName ?? id);
  }
  return out;
}

/** Reads a synthesized assembly; its counts must agree with infra/resource-report.ts's. */
export function readAssembly(dir: string, seconds = 0): Assembly {
  const resources: AssemblyResource[] = [];
  const functions: DeployedFunction[] = [];
  for (const { stack, template } of templates(dir)) {
    for (const [logicalId, r] of Object.entries(template.Resources ?? {})) {
      const path = r.Metadata?.['aws:cdk:path'];
      const owner = typeof path === 'string' && path.startsWith(`${stack}/`) ? path.slice(stack.length + 1).split('/')[0]! : logicalId;
      resources.push({ stack, owner, type: r.Type });
      if (r.Type !== 'AWS::Lambda::Function') continue;
      const asset = r.Metadata?.['aws:asset:path'];
      if (typeof asset !== 'string') throw new Error(`${stack}/${owner}: the function resource has no aws:asset:path metadata (asset metadata disabled?)`);
      const file = join(dir, asset, 'index.mjs');
      if (!existsSync(file)) throw new Error(`${stack}/${owner}: no index.mjs in its asset folder ${asset}`);
      const nodeOptions = (r.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables?.NODE_OPTIONS;
      functions.push({
        stack,
        owner,
        description: String(r.Properties?.Description ?? owner),
        asset,
        file,
        ...(typeof nodeOptions === 'string' ? { nodeOptions } : {}),
      });
    }
  }
  const counts = resourceCounts(dir);
  for (const c of counts) {
    const mine = resources.filter((r) => r.stack === c.stack).length;
    if (mine !== c.resources) throw new Error(`${c.stack}: ${mine} resources read, infra/resource-report.ts counts ${c.resources}`);
  }
  return { dir, seconds, counts, resources, functions };
}

/**
 * Synthesizes the real app into `<work>/cdk.out` and reads it (synchronous
 * inside: nothing else runs meanwhile). CDK's
 * "Bundling asset …" line per function is counted, not printed; esbuild's
 * own warnings still reach stderr.
 */
export async function synthesizeAssembly(work: string): Promise<Assembly> {
  const dir = join(work, 'cdk.out');
  // Imported here, not at the top: aws-cdk-lib is heavy, and only this section needs it.
  const { synthesizeServiceApp } = await import('../../infra/synthesize.js');
  log(`synthesizing the app as \`cdk synth\` does (every function bundled by CDK's NodejsFunction) into ${dir}`);
  const write = process.stderr.write.bind(process.stderr);
  let bundled = 0;
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    if (typeof chunk === 'string' && /^Bundling asset .*\.\.\.\s*$/.test(chunk)) {
      bundled++;
      return true;
    }
    return write(chunk, ...rest);
  }) as typeof process.stderr.write;
  const t0 = performance.now();
  try {
    synthesizeServiceApp(dir);
  } finally {
    process.stderr.write = write;
  }
  const seconds = (performance.now() - t0) / 1000;
  log(`synthesized in ${seconds.toFixed(0)} s (CDK ran its bundling ${bundled} times)`);
  return readAssembly(dir, seconds);
}

export const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');
export const bytesOf = (file: string): number => (existsSync(file) ? statSync(file).size : 0);
