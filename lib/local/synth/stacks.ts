/**
 * The stacks of a cloud assembly as scopes of references: a top-level stack
 * and its nested stacks form a tree, each template resolving its own
 * parameters (a nested stack's are its parent's `Parameters`, resolved in the
 * parent), resources and outputs (read by the parent as `Outputs.<Name>`).
 * Values are computed on first use and kept; a reference that loops back on
 * itself is unresolved instead of recursing forever.
 */
import { resolve } from 'node:path';
import { assetSources, type CfnResource, type CfnTemplate, readJson, type StackArtifact, stackArtifacts } from './cloud-assembly.js';
import { type Json, Resolver, type Scope } from './intrinsics.js';
import { functionNameOf, localAttribute, localRef, type ResourceInScope } from './local-values.js';
import type { LocalBindings } from './model.js';

/** `arn:…:function:name[:qualifier]`, an API Gateway invocation URI around one, or a name → the function's name. */
export function functionNameIn(arnOrName: string): string {
  const inner = /\/functions\/(arn:[^/]+)\/invocations$/.exec(arnOrName)?.[1] ?? arnOrName;
  const fromArn = /^arn:[^:]+:lambda:[^:]*:[^:]*:function:([^:]+)/.exec(inner)?.[1];
  return fromArn ?? inner.split(':')[0]!;
}

/** The last segment of an ARN (`arn:aws:sqs:r:a:name` → `name`). */
export const arnName = (arn: string): string => arn.slice(arn.lastIndexOf(':') + 1);

const metadataString = (resource: CfnResource, key: string): string | undefined => {
  const value = resource.Metadata?.[key];
  return typeof value === 'string' ? value : undefined;
};

export class Assembly {
  /** `where → what` of every reference left unresolved, once each. */
  readonly unresolved = new Set<string>();
  private readonly artifacts: StackArtifact[];
  private readonly loaded = new Map<string, StackNode>();
  private assets: Map<string, string> | undefined;

  constructor(
    readonly dir: string,
    readonly bindings: LocalBindings,
  ) {
    this.artifacts = stackArtifacts(dir);
  }

  readonly report = (where: string, what: string): void => {
    this.unresolved.add(`${where} → ${what}`);
  };

  /** The top-level stack named (by stack name or construct path), or the only one. */
  stack(name?: string): StackNode {
    const found = name === undefined ? this.artifacts : this.artifacts.filter((a) => a.stackName === name || a.path === name);
    if (found.length !== 1) {
      const names = this.artifacts.map((a) => a.stackName).join(', ') || 'none';
      throw new Error(
        name === undefined ? `The assembly ${this.dir} has stacks ${names}: name one.` : `The assembly ${this.dir} has no stack ${name} (it has ${names}).`,
      );
    }
    return this.load(found[0]!);
  }

  private load(artifact: StackArtifact): StackNode {
    let node = this.loaded.get(artifact.stackName);
    if (!node) {
      const template = readJson<CfnTemplate>(resolve(this.dir, artifact.templateFile));
      node = new StackNode(this, artifact.path, artifact.stackName, template, (name) => this.bindings.parameters?.[name]);
      this.loaded.set(artifact.stackName, node);
    }
    return node;
  }

  /** The folder or file of an asset: the resource's `aws:asset:path`, else the asset whose object key the template names. */
  assetPath(resource: CfnResource, objectKey: Json | undefined): string | undefined {
    const path = metadataString(resource, 'aws:asset:path');
    if (path !== undefined) return resolve(this.dir, path);
    const key = typeof objectKey === 'string' ? objectKey.slice(objectKey.lastIndexOf('/') + 1) : undefined;
    if (key === undefined) return undefined;
    this.assets ??= assetSources(this.dir);
    return this.assets.get(key);
  }

  /** A Lambda function of the stacks read so far, by ARN or name. */
  findFunction(arnOrName: string): { node: StackNode; logicalId: string } | undefined {
    const name = functionNameIn(arnOrName);
    for (const top of this.loaded.values()) {
      for (const node of top.descendants()) {
        const logicalId = node.functionNames().get(name);
        if (logicalId !== undefined) return { node, logicalId };
      }
    }
    return undefined;
  }

  stackOutput(stackNameOrArn: string, outputName: string): Json | undefined {
    const name = /:stack\/([^/]+)/.exec(stackNameOrArn)?.[1] ?? stackNameOrArn;
    const artifact = this.artifacts.find((a) => a.stackName === name);
    return artifact ? this.load(artifact).output(outputName) : undefined;
  }

  importValue(exportName: string): Json | undefined {
    for (const artifact of this.artifacts) {
      for (const node of this.load(artifact).descendants()) {
        const found = node.exported(exportName);
        if (found !== undefined) return found;
      }
    }
    return undefined;
  }
}

export class StackNode implements Scope {
  readonly resolver: Resolver;
  /** Nested stacks by the logical id of their AWS::CloudFormation::Stack resource. */
  readonly children = new Map<string, StackNode>();
  readonly conditions: Readonly<Record<string, Json>>;
  readonly mappings: Readonly<Record<string, Json>>;
  private readonly values = new Map<string, Json | undefined>();
  private readonly inProgress = new Set<string>();
  private names: Map<string, string> | undefined;

  constructor(
    readonly assembly: Assembly,
    /** Construct path of the stack, e.g. `WorkflowService/Runs`. */
    readonly path: string,
    readonly stackName: string,
    readonly template: CfnTemplate,
    /** A parameter's value given from outside the template (bindings, or the parent's Parameters). */
    private readonly given: (name: string) => Json | undefined,
  ) {
    this.conditions = template.Conditions ?? {};
    this.mappings = template.Mappings ?? {};
    this.resolver = new Resolver(this, assembly.report);
    for (const [logicalId] of this.resources('AWS::CloudFormation::Stack')) this.loadNested(logicalId);
  }

  get bindings(): LocalBindings {
    return this.assembly.bindings;
  }

  /** Where a value sits, for the unresolved report. */
  where(logicalId: string, ...path: string[]): string {
    return [`${this.path}:${logicalId}`, ...path].join('.');
  }

  /** This stack and every stack nested in it, parents first. */
  descendants(): StackNode[] {
    return [this, ...[...this.children.values()].flatMap((child) => child.descendants())];
  }

  /** The resources of a type that the template creates (their Condition, if any, holds). */
  resources(type: string): [string, CfnResource][] {
    return Object.entries(this.template.Resources ?? {}).filter(
      ([logicalId, resource]) =>
        resource.Type === type && (resource.Condition === undefined || this.resolver.condition(resource.Condition, this.where(logicalId))),
    );
  }

  resource(logicalId: string): CfnResource | undefined {
    return this.template.Resources?.[logicalId];
  }

  resolve(value: Json | undefined, where: string): Json | undefined {
    return value === undefined ? undefined : this.resolver.resolve(value, where);
  }

  /** A property of a resource, resolved. */
  property(logicalId: string, name: string): Json | undefined {
    return this.memo(`property ${logicalId}.${name}`, () =>
      this.resolve(this.resource(logicalId)?.Properties?.[name], this.where(logicalId, 'Properties', name)),
    );
  }

  /** The resource's construct path without `/Resource` (`WorkflowService/Runs/RunsCreate`). */
  constructId(logicalId: string): string {
    const path = metadataString(this.resource(logicalId) ?? { Type: '' }, 'aws:cdk:path');
    return path?.replace(/\/Resource$/, '') ?? `${this.path}/${logicalId}`;
  }

  inScope(logicalId: string): ResourceInScope {
    return {
      logicalId,
      type: this.resource(logicalId)?.Type ?? '',
      stackName: this.stackName,
      constructId: this.constructId(logicalId),
      bindings: this.bindings,
      property: (name) => this.property(logicalId, name),
      functionLogicalId: (arnOrName) => this.assembly.findFunction(arnOrName)?.logicalId,
    };
  }

  /** The stack's Lambda functions: name → logical id. */
  functionNames(): Map<string, string> {
    if (this.names) return this.names;
    // Set before it is filled: a FunctionName that asks for a function finds the ones named so far instead of recursing.
    this.names = new Map();
    for (const [logicalId] of this.resources('AWS::Lambda::Function')) this.names.set(functionNameOf(this.inScope(logicalId)), logicalId);
    return this.names;
  }

  ref(name: string): Json | undefined {
    switch (name) {
      case 'AWS::Region':
        return this.bindings.region;
      case 'AWS::AccountId':
        return this.bindings.accountId;
      case 'AWS::Partition':
        return 'aws';
      case 'AWS::URLSuffix':
        return 'amazonaws.com';
      case 'AWS::StackName':
        return this.stackName;
      case 'AWS::StackId':
        return `arn:aws:cloudformation:${this.bindings.region}:${this.bindings.accountId}:stack/${this.stackName}/local`;
      case 'AWS::NotificationARNs':
        return [];
    }
    if (this.template.Parameters?.[name]) return this.memo(`parameter ${name}`, () => this.parameter(name));
    const resource = this.resource(name);
    if (!resource) return undefined;
    if (resource.Type === 'AWS::CloudFormation::Stack') return this.children.get(name)?.ref('AWS::StackId');
    return this.memo(`Ref ${name}`, () => localRef(this.inScope(name)));
  }

  getAtt(logicalId: string, attribute: string): Json | undefined {
    const resource = this.resource(logicalId);
    if (!resource) return undefined;
    if (resource.Type === 'AWS::CloudFormation::Stack') {
      return attribute.startsWith('Outputs.') ? this.children.get(logicalId)?.output(attribute.slice('Outputs.'.length)) : undefined;
    }
    return this.memo(`GetAtt ${logicalId}.${attribute}`, () => localAttribute(this.inScope(logicalId), attribute));
  }

  output(name: string): Json | undefined {
    return this.memo(`output ${name}`, () => {
      const output = this.template.Outputs?.[name];
      if (!output || (output.Condition !== undefined && !this.resolver.condition(output.Condition, `${this.path}:Outputs.${name}`))) return undefined;
      return this.resolve(output.Value, `${this.path}:Outputs.${name}.Value`);
    });
  }

  /** The value of this stack's output exported under a name. */
  exported(exportName: string): Json | undefined {
    const found = Object.entries(this.template.Outputs ?? {}).find(
      ([name, output]) => output.Export !== undefined && this.resolve(output.Export.Name, `${this.path}:Outputs.${name}.Export.Name`) === exportName,
    );
    return found ? this.output(found[0]) : undefined;
  }

  stackOutput(stackNameOrArn: string, outputName: string): Json | undefined {
    return this.assembly.stackOutput(stackNameOrArn, outputName);
  }

  importValue(exportName: string): Json | undefined {
    return this.assembly.importValue(exportName);
  }

  private parameter(name: string): Json | undefined {
    const definition = this.template.Parameters?.[name] ?? {};
    // An SSM parameter's default is the parameter's path, not its value.
    const value = this.given(name) ?? (definition.Type?.startsWith('AWS::SSM::') ? undefined : definition.Default);
    const isList = definition.Type === 'CommaDelimitedList' || definition.Type?.startsWith('List<');
    return isList && typeof value === 'string' ? value.split(',').map((item) => item.trim()) : value;
  }

  private loadNested(logicalId: string): void {
    const resource = this.resource(logicalId)!;
    const file = this.assembly.assetPath(resource, this.property(logicalId, 'TemplateURL'));
    if (file === undefined) {
      this.assembly.report(this.where(logicalId), 'nested stack template not in the assembly');
      return;
    }
    const resourcePath = metadataString(resource, 'aws:cdk:path');
    // CDK puts the nested stack's resource at `<Parent>/<Id>.NestedStack/<Id>.NestedStackResource`.
    const path = /^(.*)\.NestedStack\/[^/]+\.NestedStackResource$/.exec(resourcePath ?? '')?.[1] ?? `${this.path}/${logicalId}`;
    const parameters = this.resource(logicalId)?.Properties?.Parameters;
    const given = (name: string): Json | undefined =>
      this.memo(`parameter ${logicalId}.${name}`, () =>
        typeof parameters === 'object' && parameters !== null && !Array.isArray(parameters)
          ? this.resolve(parameters[name], this.where(logicalId, 'Properties', 'Parameters', name))
          : undefined,
      );
    this.children.set(logicalId, new StackNode(this.assembly, path, `${this.stackName}-${logicalId}`, readJson<CfnTemplate>(file), given));
  }

  private memo(key: string, compute: () => Json | undefined): Json | undefined {
    if (this.values.has(key)) return this.values.get(key);
    // A reference that needs its own value: unresolved (the caller reports it).
    if (this.inProgress.has(key)) return undefined;
    this.inProgress.add(key);
    try {
      const value = compute();
      this.values.set(key, value);
      return value;
    } finally {
      this.inProgress.delete(key);
    }
  }
}
