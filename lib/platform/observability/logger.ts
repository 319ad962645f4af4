import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';

let root: Logger | undefined;

/** What the lines of one invocation, or of one SQS record of it, carry. */
interface LogScope {
  readonly context: Context | undefined;
  readonly keys: Record<string, string>;
  /** Made on the scope's first line: most invocations log nothing. */
  logger?: Logger;
}

/**
 * Scoped by async context rather than by `appendKeys` on one logger: a
 * worker processes the records of a batch at the same time, each with its
 * own message id, and a scope cannot outlive its invocation, so one
 * account's id never reaches the next invocation's lines.
 */
const scopes = new AsyncLocalStorage<LogScope>();

/**
 * One root logger per execution environment; level from POWERTOOLS_LOG_LEVEL.
 * Built on the first log line, not at init: the handlers log only on errors
 * and stream closes, and constructing it sets up its own stdout/stderr
 * console, a few milliseconds of every cold start otherwise.
 */
const rootLogger = (): Logger => (root ??= new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'workflow-service' }));

/**
 * The logger to write with: inside a scope (`withLogScope`), a child of the
 * root carrying the scope's Lambda context and keys; outside any, the root.
 */
export function logger(): Logger {
  const scope = scopes.getStore();
  if (!scope) return rootLogger();
  if (!scope.logger) {
    const child = rootLogger().createChild();
    if (scope.context) child.addContext(scope.context);
    child.appendKeys(scope.keys);
    scope.logger = child;
  }
  return scope.logger;
}

/**
 * Runs `fn` with every line written through `logger()` carrying `keys` and
 * the Lambda context (`function_request_id`, `cold_start`, ...). A scope
 * opened inside another (one SQS record of a batch) starts from the outer
 * one's keys and context; its own keys stay its own.
 */
export function withLogScope<T>(keys: Record<string, string>, fn: () => T, context?: Context): T {
  const outer = scopes.getStore();
  return scopes.run({ context: context ?? outer?.context, keys: { ...outer?.keys, ...keys } }, fn);
}

/** Adds keys to the current scope's lines from here on (the account, once auth has found it); outside a scope there is nothing to add them to. */
export function appendLogKeys(keys: Record<string, string>): void {
  const scope = scopes.getStore();
  if (!scope) return;
  Object.assign(scope.keys, keys);
  scope.logger?.appendKeys(keys);
}
