/**
 * Reads a synthesized cloud assembly (cdk.out) into the deployed shape that
 * `npm run start:synth` runs: one top-level stack and its nested stacks, every
 * reference resolved to the local bindings (see local-values.ts).
 */
import { deployedFunctions } from './functions.js';
import { deployedFunctionUrls, deployedRoutes } from './http.js';
import { booleanOr, isRecord, type Json, numberOr, stringOr, text } from './intrinsics.js';
import type { DeployedEventSource, DeployedQueue, DeployedSecret, DeployedShape, LocalBindings } from './model.js';
import { Assembly, arnName, functionNameIn, type StackNode } from './stacks.js';

function parsed(json: string): Json | undefined {
  try {
    return JSON.parse(json) as Json;
  } catch {
    return undefined;
  }
}

function queues(nodes: StackNode[]): DeployedQueue[] {
  return nodes.flatMap((node) =>
    node.resources('AWS::SQS::Queue').map(([logicalId]): DeployedQueue => {
      const retention = node.property(logicalId, 'MessageRetentionPeriod');
      // Older templates state the redrive policy as a JSON string.
      const policy = node.property(logicalId, 'RedrivePolicy');
      const redrive = typeof policy === 'string' ? parsed(policy) : policy;
      const deadLetterArn = isRecord(redrive) ? redrive.deadLetterTargetArn : undefined;
      return {
        logicalId,
        name: stringOr(node.getAtt(logicalId, 'QueueName'), logicalId),
        visibilityTimeoutSeconds: numberOr(node.property(logicalId, 'VisibilityTimeout'), 30),
        ...(retention === undefined ? {} : { messageRetentionSeconds: numberOr(retention, 345_600) }),
        ...(isRecord(redrive) && typeof deadLetterArn === 'string'
          ? { redrive: { deadLetterQueueName: arnName(deadLetterArn), maxReceiveCount: numberOr(redrive.maxReceiveCount, 10) } }
          : {}),
      };
    }),
  );
}

function eventSources(nodes: StackNode[], functionIdOf: (arnOrName: string) => string | undefined): DeployedEventSource[] {
  return nodes.flatMap((node) =>
    node.resources('AWS::Lambda::EventSourceMapping').flatMap(([logicalId]): DeployedEventSource[] => {
      const source = stringOr(node.property(logicalId, 'EventSourceArn'), '');
      const functionId = functionIdOf(stringOr(node.property(logicalId, 'FunctionName'), ''));
      // Streams and other event sources have no local poller.
      if (!/^arn:[^:]+:sqs:/.test(source) || functionId === undefined) {
        node.assembly.report(node.where(logicalId), 'event source mapping is not from a queue to a function of the assembly');
        return [];
      }
      const responseTypes = node.property(logicalId, 'FunctionResponseTypes');
      return [
        {
          functionId,
          queueName: arnName(source),
          batchSize: numberOr(node.property(logicalId, 'BatchSize'), 10),
          maximumBatchingWindowSeconds: numberOr(node.property(logicalId, 'MaximumBatchingWindowInSeconds'), 0),
          reportBatchItemFailures: Array.isArray(responseTypes) && responseTypes.includes('ReportBatchItemFailures'),
          enabled: booleanOr(node.property(logicalId, 'Enabled'), true),
        },
      ];
    }),
  );
}

function secrets(nodes: StackNode[]): DeployedSecret[] {
  return nodes.flatMap((node) =>
    node.resources('AWS::SecretsManager::Secret').map(([logicalId]): DeployedSecret => {
      const generate = node.property(logicalId, 'GenerateSecretString');
      const secretString = node.property(logicalId, 'SecretString');
      return {
        logicalId,
        arn: stringOr(node.ref(logicalId), ''),
        name: stringOr(node.property(logicalId, 'Name'), logicalId),
        ...(isRecord(generate)
          ? {
              generate: {
                ...(generate.PasswordLength === undefined ? {} : { passwordLength: numberOr(generate.PasswordLength, 32) }),
                ...(generate.ExcludePunctuation === undefined ? {} : { excludePunctuation: booleanOr(generate.ExcludePunctuation, false) }),
              },
            }
          : {}),
        ...(secretString === undefined ? {} : { secretString: text(secretString) }),
      };
    }),
  );
}

function table(root: StackNode, nodes: StackNode[]): DeployedShape['table'] {
  const tables = nodes.flatMap((node) =>
    ['AWS::DynamoDB::Table', 'AWS::DynamoDB::GlobalTable'].flatMap((type) => node.resources(type).map(([logicalId]) => ({ node, logicalId }))),
  );
  if (tables.length > 1) {
    // bindings.tableName names one local table: two would silently share it.
    throw new Error(
      `The stack ${root.stackName} has ${tables.length} DynamoDB tables (${tables.map((t) => t.logicalId).join(', ')}); the local runner binds one.`,
    );
  }
  const [found] = tables;
  if (!found) root.assembly.report(root.path, 'no AWS::DynamoDB::Table');
  const arn = `arn:aws:dynamodb:${root.bindings.region}:${root.bindings.accountId}:table/${root.bindings.tableName}`;
  return { logicalId: found?.logicalId ?? '', name: root.bindings.tableName, arn };
}

/**
 * The deployed shape of the top-level stack `options.stackName` (or the
 * assembly's only one) and its nested stacks. Throws only for an assembly it
 * cannot read (no manifest, no such stack, more than one table); references
 * without a local value become `<unresolved …>` placeholders, listed in
 * `unresolved`.
 */
export function readAssembly(dir: string, bindings: LocalBindings, options: { stackName?: string } = {}): DeployedShape {
  const assembly = new Assembly(dir, bindings);
  const root = assembly.stack(options.stackName);
  const nodes = root.descendants();
  const functions = deployedFunctions(nodes);
  const idByName = new Map(functions.map((fn) => [fn.functionName, fn.id]));
  const functionIdOf = (arnOrName: string): string | undefined => idByName.get(functionNameIn(arnOrName));
  const shape: DeployedShape = {
    stackName: root.stackName,
    functions,
    routes: deployedRoutes(nodes, functionIdOf),
    functionUrls: deployedFunctionUrls(nodes, functionIdOf),
    queues: queues(nodes),
    eventSources: eventSources(nodes, functionIdOf),
    secrets: secrets(nodes),
    table: table(root, nodes),
    resourceCounts: Object.fromEntries(nodes.map((node) => [node.path, Object.keys(node.template.Resources ?? {}).length])),
    unresolved: [],
  };
  // Last: every part above may have added to it.
  shape.unresolved = [...assembly.unresolved];
  return shape;
}
