import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { type GatewayRoute, type RouteInvoker, STREAMED } from '../gateway.js';
import type { BundleRuntime } from './bundle-runtime.js';
import type { DeployedShape } from './model.js';

/** `/v2/runs/*\/events` (a CloudFront path pattern) → `/v2/runs/{p1}/events`, which the gateway's matcher reads. */
const pathOfPattern = (pattern: string): string => {
  let n = 0;
  return pattern.replace(/\*/g, () => `{p${++n}}`);
};

/**
 * The template's routes as the gateway serves them: each HTTP API route to
 * its function, and each CloudFront path that leads to a function URL to
 * that function, streamed.
 */
export function deployedRoutesOf(shape: DeployedShape): GatewayRoute[] {
  const timeoutOf = (functionId: string) => shape.functions.find((f) => f.id === functionId)?.timeoutSeconds;
  return [
    ...shape.routes.map((route) => ({
      id: route.functionId,
      method: route.method as GatewayRoute['method'],
      path: route.path,
      timeoutSeconds: timeoutOf(route.functionId),
    })),
    ...shape.functionUrls.flatMap((url) =>
      url.pathPatterns
        .filter((pattern) => pattern !== '*')
        .map((pattern) => ({
          id: url.functionId,
          method: 'ANY' as const,
          path: pathOfPattern(pattern),
          streaming: url.invokeMode === 'RESPONSE_STREAM',
          timeoutSeconds: timeoutOf(url.functionId),
        })),
    ),
  ];
}

/** A function URL's event: payload 2.0 without a route (`$default`) or path parameters, which only API Gateway fills. */
const functionUrlEvent = (event: APIGatewayProxyEventV2): APIGatewayProxyEventV2 => ({
  ...event,
  routeKey: '$default',
  pathParameters: undefined,
  requestContext: { ...event.requestContext, routeKey: '$default' },
});

/** Invokes the route's function in its bundle runtime: buffered for the API, streamed for a function URL. */
export function routeInvoker(runtimes: ReadonlyMap<string, BundleRuntime>): RouteInvoker {
  return async (route, event, res) => {
    const runtime = runtimes.get(route.id);
    if (!runtime) throw new Error(`No function ${route.id} in the assembly.`);
    if (!route.streaming) return runtime.invoke(event);
    await runtime.invokeStreaming(functionUrlEvent(event), res);
    return STREAMED;
  };
}
