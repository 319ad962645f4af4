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

/**
 * Synthesizes the real app (infra/app.ts's, with cdk.json's context) once
 * for the infra tests and the smoke suite against `npm run start:synth`:
 * every function bundled, cdk-nag and CloudFormation's rules applied, so a
 * finding fails the run here, with its report.
 */
export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'wfs-assembly-'));
  synthesizeServiceApp(dir);
  project.provide('assemblyDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
