import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { synthesizeServiceApp } from '../../infra/synthesize.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The real app's cloud assembly, synthesized once for the run as `cdk synth` does. */
    assemblyDir: string;
  }
}

export const SMOKE_CONTEXT = { outboundAllowedHosts: '127.0.0.1', outboundAllowInsecure: 'true' };

/**
 * Synthesizes the real app (infra/app.ts's, with cdk.json's context and SMOKE_CONTEXT) once
 * for the infra tests and the smoke suite against `npm run start:synth`:
 * every function bundled, cdk-nag and CloudFormation's rules applied, so a
 * finding fails the run here, with its report.
 */
export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'wfs-assembly-'));
  // The outbound context an operator gives to let the smoke suite's MCP server and webhook receiver on 127.0.0.1 be called.
  synthesizeServiceApp(dir, SMOKE_CONTEXT);
  project.provide('assemblyDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
