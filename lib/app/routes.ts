import type { AuthScheme, EndpointContract, HttpMethod, TableAccess } from '#platform/http/contract.js';
import type { QueueDefinition } from '#platform/queues.js';
import { ENDPOINTS, FEATURES } from './registry.generated.js';

/**
 * A route as the CDK stack and the local gateway serve it: the part of an
 * endpoint contract (lib/<feature>/contracts/) that says where it runs. The
 * stack creates one Lambda function and one API Gateway route per entry; the
 * local gateway routes HTTP to the same handler files.
 */
export interface RouteDefinition {
  /** Stable function id: CDK construct id and bench/report name. */
  id: string;
  method: HttpMethod | 'ANY';
  /** API Gateway path syntax, `{name}` for parameters; `$default` catches the rest. */
  path: string;
  /** Handler source, relative to the repository root; exports `handler`. */
  entry: string;
  table: TableAccess;
  /** The credential (the contract's). An authenticated route writes its account's rate log on every request: the stack grants that write. */
  auth?: AuthScheme;
  /** Served by the response-streaming function URL instead of API Gateway. */
  streaming?: boolean;
  /** Sends to the queues (the stack grants sqs:SendMessage only to these). */
  sends?: boolean;
  /** Calls addresses users chose: the stack sets the operator's outbound settings on it. */
  outbound?: boolean;
  /** Derives webhook secrets: the stack lets it read the service key. */
  serviceKey?: boolean;
  /** Ships the built console and reference pages in its bundle. */
  staticFiles?: boolean;
  /** Keeps the schedules' EventBridge Scheduler schedules: the stack grants that on the stack's schedule group and sets SCHEDULER_* on it. */
  schedules?: boolean;
  timeoutSeconds?: number;
  memoryMb?: number;
}

export const routeOf = (contract: EndpointContract): RouteDefinition => {
  const { id, method, path, handler: entry, table, auth, streaming, sends, outbound, serviceKey, staticFiles, schedules, timeoutSeconds, memoryMb } = contract;
  const optional = { streaming, sends, outbound, serviceKey, staticFiles, schedules, timeoutSeconds, memoryMb };
  return { id, method, path, entry, table, auth, ...Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined)) };
};

/** The one route table: every feature's contracts (lib/app/registry.generated.ts), as routes. */
export const ROUTES: readonly RouteDefinition[] = ENDPOINTS.map(routeOf);

/** A feature's routes and queues: the CDK app deploys each as a nested stack (infra/feature-stack.ts). */
export interface FeatureLayout {
  name: string;
  routes: readonly RouteDefinition[];
  queues: readonly QueueDefinition[];
}

/** Every feature of lib/ with its routes and queues, in the registry's order. */
export const FEATURE_LAYOUT: readonly FeatureLayout[] = FEATURES.map(({ name, endpoints, queues }) => ({ name, routes: endpoints.map(routeOf), queues }));
