import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { App } from 'aws-cdk-lib';
import { createServiceApp } from './service-app.js';
import { REPO_ROOT } from './service-functions.js';

/**
 * What the CDK CLI adds to an app's context on `cdk synth`: asset and path
 * metadata (which asset folder is which function, which construct a resource
 * is). Without them an in-process synthesis would differ from the CLI's.
 */
const CLI_CONTEXT = { 'aws:cdk:enable-asset-metadata': true, 'aws:cdk:enable-path-metadata': true, 'aws:cdk:version-reporting': true } as const;

/** cdk.json's context: feature flags and the defaults `cdk synth` runs with. */
export function cdkJsonContext(): Record<string, unknown> {
  return (JSON.parse(readFileSync(resolve(REPO_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }).context;
}

/**
 * Synthesizes the real app into `outdir`, as `cdk synth -o outdir -c ...`
 * would: cdk.json's context, then `context` over it. cdk-nag and
 * CloudFormation's rules run as in the CLI: a finding throws.
 */
export function synthesizeServiceApp(outdir: string, context: Record<string, unknown> = {}): string {
  const app = new App({ outdir, context: { ...cdkJsonContext(), ...CLI_CONTEXT, ...context } });
  createServiceApp(app, () => undefined);
  app.synth();
  return outdir;
}
