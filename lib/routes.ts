/**
 * The one route table. The CDK stack creates one Lambda function and one
 * API Gateway route per entry; the local gateway routes HTTP to the same
 * handler files. Adding an endpoint means adding a line here.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a function may do to the table; the stack grants exactly this. */
export type TableAccess = 'none' | 'read' | 'readwrite';

export interface RouteDefinition {
  /** Stable function id: CDK construct id and bench/report name. */
  id: string;
  method: HttpMethod | 'ANY';
  /** API Gateway path syntax, `{name}` for parameters; `$default` catches the rest. */
  path: string;
  /** Handler source, relative to the repository root; exports `handler`. */
  entry: string;
  table: TableAccess;
  /** Served by the response-streaming function URL instead of API Gateway. */
  streaming?: boolean;
  timeoutSeconds?: number;
  memoryMb?: number;
}

export const ROUTES: readonly RouteDefinition[] = [
  { id: 'Health', method: 'GET', path: '/healthz', entry: 'functions/health.ts', table: 'read' },
  { id: 'OpenApi', method: 'GET', path: '/openapi.json', entry: 'functions/openapi.ts', table: 'none' },
  { id: 'AuthLogin', method: 'POST', path: '/v1/auth/login', entry: 'functions/auth/login.ts', table: 'readwrite', memoryMb: 256 },
  { id: 'AuthLogout', method: 'POST', path: '/v1/auth/logout', entry: 'functions/auth/logout.ts', table: 'readwrite' },
  { id: 'ApiTokensCreate', method: 'POST', path: '/v1/api-tokens', entry: 'functions/api-tokens/create.ts', table: 'readwrite' },
  { id: 'ApiTokensList', method: 'GET', path: '/v1/api-tokens', entry: 'functions/api-tokens/list.ts', table: 'read' },
  { id: 'ApiTokensRevoke', method: 'POST', path: '/v1/api-tokens/revoke', entry: 'functions/api-tokens/revoke.ts', table: 'readwrite' },
  { id: 'NotFound', method: 'ANY', path: '$default', entry: 'functions/not-found.ts', table: 'none' },
];

export interface MatchedRoute {
  route: RouteDefinition;
  params: Record<string, string>;
  /** API Gateway's `routeKey`, e.g. `GET /v1/api-tokens`. */
  routeKey: string;
}

const compiled = new WeakMap<RouteDefinition, RegExp>();
function patternOf(route: RouteDefinition): RegExp {
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
 * anything unmatched, method included, falls to `$default`.
 */
export function matchRoute(method: string, path: string, routes: readonly RouteDefinition[] = ROUTES): MatchedRoute | undefined {
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
export function allowedMethods(path: string, routes: readonly RouteDefinition[] = ROUTES): string[] {
  return [...new Set(routes.filter((r) => r.path !== '$default' && patternOf(r).test(path)).map((r) => r.method))];
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
