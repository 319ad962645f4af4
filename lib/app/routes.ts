import { type DomainError, MethodNotAllowedError, NotFoundError } from '#platform/errors.js';
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
  /** Sends to the queues (the stack grants sqs:SendMessage only to these). */
  sends?: boolean;
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
  // Workflows. API Gateway wants one name per variable segment, so every
  // `/v1/workflows/{…}` route says `{id}`; on entry-nodes it is a version id.
  { id: 'WorkflowsCreate', method: 'POST', path: '/v1/workflows', entry: 'functions/workflows/create.ts', table: 'readwrite' },
  { id: 'WorkflowsList', method: 'GET', path: '/v1/workflows', entry: 'functions/workflows/list.ts', table: 'read' },
  { id: 'WorkflowsGet', method: 'GET', path: '/v1/workflows/{id}', entry: 'functions/workflows/get.ts', table: 'read' },
  { id: 'WorkflowVersionsCreate', method: 'POST', path: '/v1/workflows/{id}/versions', entry: 'functions/workflows/create-version.ts', table: 'readwrite' },
  { id: 'WorkflowVersionsLatest', method: 'GET', path: '/v1/workflows/{id}/versions/latest', entry: 'functions/workflows/latest-version.ts', table: 'read' },
  { id: 'WorkflowEntryNodes', method: 'GET', path: '/v1/workflows/{id}/entry-nodes', entry: 'functions/workflows/entry-nodes.ts', table: 'read' },
  { id: 'ChatsCreate', method: 'POST', path: '/v1/chats', entry: 'functions/chats/create.ts', table: 'readwrite' },
  { id: 'ChatsGet', method: 'GET', path: '/v1/chats/{id}', entry: 'functions/chats/get.ts', table: 'read' },
  // Workflow execution (lib/execution).
  {
    id: 'WorkflowRequestsRun',
    method: 'POST',
    path: '/v1/workflow-requests/run',
    entry: 'functions/workflow-requests/run.ts',
    table: 'readwrite',
    sends: true,
  },
  { id: 'WorkflowRequestsList', method: 'GET', path: '/v1/workflow-requests', entry: 'functions/workflow-requests/list.ts', table: 'read' },
  { id: 'WorkflowRequestsGet', method: 'GET', path: '/v1/workflow-requests/{id}', entry: 'functions/workflow-requests/get.ts', table: 'read' },
  { id: 'WorkflowRequestsTree', method: 'GET', path: '/v1/workflow-requests/{id}/tree', entry: 'functions/workflow-requests/tree.ts', table: 'read' },
  {
    id: 'WorkflowRequestsStop',
    method: 'POST',
    path: '/v1/workflow-requests/{id}/stop',
    entry: 'functions/workflow-requests/stop.ts',
    table: 'readwrite',
    sends: true,
  },
  { id: 'ChatMemoryGet', method: 'GET', path: '/v1/chat-memory/{agentNodeId}', entry: 'functions/chat-memory/get.ts', table: 'read' },
  {
    id: 'WorkflowRequestsListen',
    method: 'GET',
    path: '/v1/workflow-requests/{id}/listen',
    entry: 'functions/workflow-requests/listen.ts',
    table: 'read',
    streaming: true,
    timeoutSeconds: 900,
  },
  { id: 'InteractionsList', method: 'GET', path: '/v2/interactions', entry: 'functions/interactions/list.ts', table: 'read' },
  { id: 'InteractionsGet', method: 'GET', path: '/v2/interactions/{id}', entry: 'functions/interactions/get.ts', table: 'read' },
  {
    id: 'InteractionsRespond',
    method: 'POST',
    path: '/v2/interactions/{id}/respond',
    entry: 'functions/interactions/respond.ts',
    table: 'readwrite',
    sends: true,
  },
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

/** What a request no route serves gets: 405 naming the methods the path does answer, else 404. */
export function unservedRouteError(method: string, path: string, routes: readonly RouteDefinition[] = ROUTES): DomainError {
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
