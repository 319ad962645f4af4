/**
 * The Lambda functions of the stack tree, each with its code folder, settings,
 * environment and execution role: the role's identity-policy statements are
 * what the local IAM proxy enforces, so every policy the template attaches to
 * the role counts (inline, AWS::IAM::Policy, AWS::IAM::RolePolicy and the
 * template's own managed policies); AWS managed policies are not read.
 */
import { isRecord, type Json, numberOr, stringOr, text } from './intrinsics.js';
import { functionNameOf } from './local-values.js';
import type { DeployedFunction, PolicyStatement } from './model.js';
import type { StackNode } from './stacks.js';

type Role = DeployedFunction['role'];

const list = (value: Json | undefined): Json[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]);

function statementsOf(document: Json | undefined): PolicyStatement[] {
  return isRecord(document) ? (list(document.Statement).filter(isRecord) as unknown as PolicyStatement[]) : [];
}

/** Every statement the templates attach to a role of the tree. */
function statementsOfRole(nodes: StackNode[], node: StackNode, logicalId: string, name: string): PolicyStatement[] {
  const managedArns = new Set(list(node.property(logicalId, 'ManagedPolicyArns')));
  const inline = list(node.property(logicalId, 'Policies')).flatMap((policy) => (isRecord(policy) ? statementsOf(policy.PolicyDocument) : []));
  const attached = nodes.flatMap((other) => [
    ...other
      .resources('AWS::IAM::Policy')
      .filter(([id]) => list(other.property(id, 'Roles')).includes(name))
      .flatMap(([id]) => statementsOf(other.property(id, 'PolicyDocument'))),
    ...other
      .resources('AWS::IAM::RolePolicy')
      .filter(([id]) => other.property(id, 'RoleName') === name)
      .flatMap(([id]) => statementsOf(other.property(id, 'PolicyDocument'))),
    ...other
      .resources('AWS::IAM::ManagedPolicy')
      .filter(([id]) => list(other.property(id, 'Roles')).includes(name) || managedArns.has(other.ref(id) ?? null))
      .flatMap(([id]) => statementsOf(other.property(id, 'PolicyDocument'))),
  ]);
  return [...inline, ...attached];
}

function roleOf(nodes: StackNode[], arn: string): Role {
  for (const node of nodes) {
    for (const [logicalId] of node.resources('AWS::IAM::Role')) {
      if (node.getAtt(logicalId, 'Arn') !== arn) continue;
      const name = stringOr(node.ref(logicalId), logicalId);
      return { logicalId, name, arn, statements: statementsOfRole(nodes, node, logicalId, name) };
    }
  }
  // A role from outside the template (imported by ARN): its policies are not known here.
  return { logicalId: '', name: arn.slice(arn.lastIndexOf('/') + 1), arn, statements: [] };
}

export function deployedFunctions(nodes: StackNode[]): DeployedFunction[] {
  return nodes.flatMap((node) =>
    node.resources('AWS::Lambda::Function').map(([logicalId, resource]): DeployedFunction => {
      const code = node.property(logicalId, 'Code');
      const assetDir = node.assembly.assetPath(resource, isRecord(code) ? code.S3Key : undefined);
      if (assetDir === undefined) node.assembly.report(node.where(logicalId, 'Properties', 'Code'), 'code not in the assembly');
      const environment = node.property(logicalId, 'Environment');
      const variables = isRecord(environment) && isRecord(environment.Variables) ? environment.Variables : {};
      const architecture = list(node.property(logicalId, 'Architectures'))[0];
      return {
        id: node.constructId(logicalId),
        logicalId,
        functionName: functionNameOf(node.inScope(logicalId)),
        assetDir: assetDir ?? '',
        handler: stringOr(node.property(logicalId, 'Handler'), ''),
        runtime: stringOr(node.property(logicalId, 'Runtime'), ''),
        architecture: stringOr(architecture, 'x86_64'),
        timeoutSeconds: numberOr(node.property(logicalId, 'Timeout'), 3),
        memoryMb: numberOr(node.property(logicalId, 'MemorySize'), 128),
        environment: Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, text(value)])),
        role: roleOf(nodes, stringOr(node.property(logicalId, 'Role'), '')),
      };
    }),
  );
}
