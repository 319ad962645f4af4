import { type DomainError, MethodNotAllowedError, NotFoundError } from '../errors.js';

/** What matching needs of a route: its method and its API Gateway path (`{name}` parameters, `$default`). */
export interface RoutePattern {
  method: string;
  path: string;
}

export interface MatchedRoute<R extends RoutePattern> {
  route: R;
  params: Record<string, string>;
  /** API Gateway's `routeKey`, e.g. `GET /v1/api-tokens`. */
  routeKey: string;
}

const compiled = new WeakMap<RoutePattern, RegExp>();
function patternOf(route: RoutePattern): RegExp {
  let pattern = compiled.get(route);
  if (!pattern) {
    const source = route.path
      .split('/')
      .map((segment) => (/^\{[^}]+\}$/.test(segment) ? '([^/]+)' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    pattern = new RegExp(`^${source}$`);
    compiled.set(route, pattern);
  }
  return pattern;
}

const paramNames = (path: string): string[] => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);

/**
 * API Gateway's matching: the most specific path wins (fewer parameters) and
 * anything unmatched, method included, falls to `$default` when `routes` has it.
 */
export function matchRoute<R extends RoutePattern>(method: string, path: string, routes: readonly R[]): MatchedRoute<R> | undefined {
  const exact = routes
    .filter((r) => r.path !== '$default' && (r.method === method || r.method === 'ANY') && patternOf(r).test(path))
    .sort((a, b) => paramNames(a.path).length - paramNames(b.path).length)[0];
  if (exact) {
    const values = patternOf(exact).exec(path)!.slice(1);
    const params = Object.fromEntries(paramNames(exact.path).map((name, i) => [name, safeDecode(values[i] ?? '')]));
    return { route: exact, params, routeKey: `${exact.method} ${exact.path}` };
  }
  const fallback = routes.find((r) => r.path === '$default');
  return fallback ? { route: fallback, params: {}, routeKey: '$default' } : undefined;
}

/** Methods served at a path, so `$default` can tell 405 from 404. */
export function allowedMethods(path: string, routes: readonly RoutePattern[]): string[] {
  return [...new Set(routes.filter((r) => r.path !== '$default' && patternOf(r).test(path)).map((r) => r.method))];
}

/** What a request no route serves gets: 405 naming the methods the path does answer, else 404. */
export function unservedRouteError(method: string, path: string, routes: readonly RoutePattern[]): DomainError {
  const allowed = allowedMethods(path, routes);
  return allowed.length > 0 ? new MethodNotAllowedError(allowed) : new NotFoundError(`No endpoint at ${method} ${path}.`);
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
