/**
 * The HTTP side of the stack tree: the HTTP API's routes (Route → Integration
 * → function) and the function URLs with the CloudFront path patterns that
 * reach them. Route, integration, function, URL and distribution may each sit
 * in another stack of the tree.
 */
import { isRecord, stringOr } from './intrinsics.js';
import type { DeployedFunctionUrl, DeployedRoute } from './model.js';
import type { StackNode } from './stacks.js';

/** The id of a function of the tree by its ARN or name. */
export type FunctionIdOf = (arnOrName: string) => string | undefined;

function integrationOf(nodes: StackNode[], near: StackNode, logicalId: string): { node: StackNode; logicalId: string } | undefined {
  const holder = [near, ...nodes].find((node) => node.resources('AWS::ApiGatewayV2::Integration').some(([id]) => id === logicalId));
  return holder && { node: holder, logicalId };
}

export function deployedRoutes(nodes: StackNode[], functionIdOf: FunctionIdOf): DeployedRoute[] {
  return nodes.flatMap((node) =>
    node.resources('AWS::ApiGatewayV2::Route').flatMap(([logicalId]): DeployedRoute[] => {
      const routeKey = stringOr(node.property(logicalId, 'RouteKey'), '');
      const [method, path] = routeKey === '$default' ? ['ANY', '$default'] : routeKey.split(' ', 2);
      const integrationId = /^integrations\/(.+)$/.exec(stringOr(node.property(logicalId, 'Target'), ''))?.[1];
      const integration = integrationId === undefined ? undefined : integrationOf(nodes, node, integrationId);
      const uri = integration?.node.property(integration.logicalId, 'IntegrationUri');
      const functionId = typeof uri === 'string' ? functionIdOf(uri) : undefined;
      if (method === undefined || path === undefined || functionId === undefined) {
        node.assembly.report(node.where(logicalId), `route ${routeKey} does not lead to a function of the assembly`);
        return [];
      }
      const payloadFormatVersion = stringOr(integration!.node.property(integration!.logicalId, 'PayloadFormatVersion'), '1.0');
      return [{ method, path, functionId, payloadFormatVersion }];
    }),
  );
}

/** `https://host/` or `host` → `host`. */
const hostOf = (value: string): string => value.replace(/^https?:\/\//, '').replace(/\/.*$/, '');

/**
 * CloudFront path patterns by origin host, over every distribution of the
 * tree. A distribution's default behaviour counts as the pattern `*`.
 */
function pathPatternsByHost(nodes: StackNode[]): Map<string, string[]> {
  const byHost = new Map<string, string[]>();
  for (const node of nodes) {
    for (const [logicalId, resource] of node.resources('AWS::CloudFront::Distribution')) {
      // Only what routing needs is resolved: certificates, logging and origin access controls are not local.
      const config = resource.Properties?.DistributionConfig;
      if (!isRecord(config)) continue;
      const at = (...path: string[]) => node.where(logicalId, 'Properties', 'DistributionConfig', ...path);
      const hosts = new Map<string, string>();
      (Array.isArray(config.Origins) ? config.Origins : []).forEach((origin, i) => {
        if (!isRecord(origin)) return;
        const id = node.resolve(origin.Id, at(`Origins[${i}]`, 'Id'));
        const domain = node.resolve(origin.DomainName, at(`Origins[${i}]`, 'DomainName'));
        if (typeof id === 'string' && typeof domain === 'string') hosts.set(id, hostOf(domain));
      });
      const behaviours = [
        ...(isRecord(config.DefaultCacheBehavior) ? [{ behaviour: config.DefaultCacheBehavior, where: 'DefaultCacheBehavior' }] : []),
        ...(Array.isArray(config.CacheBehaviors) ? config.CacheBehaviors : []).map((behaviour, i) => ({ behaviour, where: `CacheBehaviors[${i}]` })),
      ];
      for (const { behaviour, where } of behaviours) {
        if (!isRecord(behaviour)) continue;
        const pattern = where === 'DefaultCacheBehavior' ? '*' : node.resolve(behaviour.PathPattern, at(where, 'PathPattern'));
        const host = hosts.get(stringOr(node.resolve(behaviour.TargetOriginId, at(where, 'TargetOriginId')), ''));
        if (typeof pattern === 'string' && host !== undefined) byHost.set(host, [...(byHost.get(host) ?? []), pattern]);
      }
    }
  }
  return byHost;
}

export function deployedFunctionUrls(nodes: StackNode[], functionIdOf: FunctionIdOf): DeployedFunctionUrl[] {
  const patterns = pathPatternsByHost(nodes);
  return nodes.flatMap((node) =>
    node.resources('AWS::Lambda::Url').flatMap(([logicalId]): DeployedFunctionUrl[] => {
      const target = node.property(logicalId, 'TargetFunctionArn');
      const functionId = typeof target === 'string' ? functionIdOf(target) : undefined;
      const url = node.getAtt(logicalId, 'FunctionUrl');
      if (functionId === undefined || typeof url !== 'string') {
        node.assembly.report(node.where(logicalId, 'Properties', 'TargetFunctionArn'), 'function URL of no function of the assembly');
        return [];
      }
      return [
        {
          functionId,
          invokeMode: node.property(logicalId, 'InvokeMode') === 'RESPONSE_STREAM' ? 'RESPONSE_STREAM' : 'BUFFERED',
          authType: node.property(logicalId, 'AuthType') === 'AWS_IAM' ? 'AWS_IAM' : 'NONE',
          pathPatterns: patterns.get(hostOf(url)) ?? [],
        },
      ];
    }),
  );
}
