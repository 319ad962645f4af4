/**
 * The files of a synthesized cloud assembly (cdk.out): its manifest's stack
 * artifacts, their templates and the asset manifests that name each asset's
 * folder or file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Json } from './intrinsics.js';

export interface CfnResource {
  Type: string;
  Properties?: { [key: string]: Json };
  Metadata?: { [key: string]: Json };
  Condition?: string;
}

export interface CfnTemplate {
  Parameters?: Record<string, { Type?: string; Default?: Json }>;
  Conditions?: Record<string, Json>;
  Mappings?: Record<string, Json>;
  Resources?: Record<string, CfnResource>;
  Outputs?: Record<string, { Value: Json; Condition?: string; Export?: { Name: Json } }>;
}

export interface StackArtifact {
  /** The CloudFormation stack name. */
  stackName: string;
  /** The stack's construct path (the artifact's display name). */
  path: string;
  templateFile: string;
}

interface Manifest {
  artifacts?: Record<string, { type: string; displayName?: string; properties?: { templateFile?: string; stackName?: string } }>;
}

export const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;

/** The top-level stacks of the assembly (nested assemblies of CDK stages are not read). */
export function stackArtifacts(dir: string): StackArtifact[] {
  const manifest = readJson<Manifest>(join(dir, 'manifest.json'));
  return Object.entries(manifest.artifacts ?? {}).flatMap(([id, artifact]) =>
    artifact.type === 'aws:cloudformation:stack' && artifact.properties?.templateFile
      ? [{ stackName: artifact.properties.stackName ?? id, path: artifact.displayName ?? id, templateFile: artifact.properties.templateFile }]
      : [],
  );
}

/**
 * Asset object keys (`<hash>.zip`, `<hash>.json`) → absolute source path, from
 * every `*.assets.json`: how a function's code or a nested template is found
 * when the template carries no `aws:asset:path` metadata (`--no-asset-metadata`).
 */
export function assetSources(dir: string): Map<string, string> {
  const sources = new Map<string, string>();
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.assets.json'))) {
    const assets = readJson<{ files?: Record<string, { source?: { path?: string }; destinations?: Record<string, { objectKey?: string }> }> }>(join(dir, file));
    for (const asset of Object.values(assets.files ?? {})) {
      for (const destination of Object.values(asset.destinations ?? {})) {
        if (asset.source?.path && destination.objectKey) sources.set(destination.objectKey, resolve(dir, asset.source.path));
      }
    }
  }
  return sources;
}
