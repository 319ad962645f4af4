import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation properties are whatever each resource type defines
type Json = any;
export type Resource = {
  Type: string;
  Properties?: Record<string, Json>;
  DependsOn?: string | string[];
  DeletionPolicy?: string;
  Metadata?: Record<string, Json>;
};
export interface TemplateJson {
  Parameters?: Record<string, { Type: string; NoEcho?: boolean; Default?: unknown }>;
  Resources: Record<string, Resource>;
  Outputs?: Record<string, { Value: unknown; Export?: unknown }>;
}

/** One stack of the assembly: the root or a nested one, by the construct id of its nested stack (`Runs`, `Streams`). */
export interface AssemblyStack {
  name: string;
  file: string;
  template: TemplateJson;
}

/** The root template and every nested one, read from a cloud assembly. */
export function readStacks(dir: string, rootName = 'WorkflowService'): AssemblyStack[] {
  const root: AssemblyStack = {
    name: rootName,
    file: `${rootName}.template.json`,
    template: JSON.parse(readFileSync(join(dir, `${rootName}.template.json`), 'utf8')),
  };
  const nested = Object.entries(root.template.Resources)
    .filter(([, r]) => r.Type === 'AWS::CloudFormation::Stack')
    .map(([id, r]) => {
      const file = r.Metadata?.['aws:asset:path'] as string;
      return { name: id.replace(/NestedStack.*$/, ''), file, template: JSON.parse(readFileSync(join(dir, file), 'utf8')) as TemplateJson };
    });
  return [root, ...nested];
}

export const resourcesOfType = (stack: AssemblyStack, type: string): [string, Resource][] =>
  Object.entries(stack.template.Resources).filter(([, r]) => r.Type === type);

/** Allow statements of a role of a template: inline and attached AWS::IAM::Policy. */
export function roleStatements(stack: AssemblyStack, roleId: string): { Action: string | string[]; Resource?: unknown; Condition?: unknown }[] {
  const resources = stack.template.Resources;
  const out: { Action: string | string[]; Resource?: unknown; Condition?: unknown }[] = [];
  const collect = (doc: { Statement?: { Effect: string; Action: string | string[] }[] }) => {
    for (const s of doc.Statement ?? []) if (s.Effect === 'Allow') out.push(s);
  };
  for (const policy of resources[roleId]?.Properties?.Policies ?? []) collect(policy.PolicyDocument);
  for (const r of Object.values(resources)) {
    if (r.Type === 'AWS::IAM::Policy' && (r.Properties?.Roles ?? []).some((x: { Ref?: string }) => x.Ref === roleId)) collect(r.Properties!.PolicyDocument);
  }
  return out;
}

/** The role logical id of a function resource (`Role: {Fn::GetAtt: [id, 'Arn']}`). */
export const roleOf = (fn: Resource): string => fn.Properties?.Role?.['Fn::GetAtt']?.[0] as string;
