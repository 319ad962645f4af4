/**
 * What other features may use of execution: starting a workflow request as
 * `POST /v1/workflow-requests/run` does (the same reference checks, the same
 * ceiling on work in progress), for requests that start another way (a
 * hook's event, lib/hooks).
 */
import type { TableRef } from '#platform/table/table.js';
import { webhookNotices } from '#webhooks/index.js';
import { chatLookup, workflowVersions } from '#workflows/index.js';
import { enqueueNodeTasks } from './node-queue.js';
import { checkStartable, type StartDeps, type StartInput, startRequest } from './start.js';
import { workflowRequests } from './workflow-requests.js';

export type { StartInput } from './start.js';

export interface RequestStarter {
  /** Whether a request of this version at these entry nodes could start: resolves, or throws the 422 running it would answer. */
  check(accountId: string, input: Pick<StartInput, 'workflow_version_id' | 'entry_node_ids'>): Promise<void>;
  /**
   * Starts a request the account pays for, within its ceiling on work in
   * progress (`limits`; 429 `rate_limited` past it). With `id` (deterministic),
   * a request that already has it is answered and not started again.
   */
  start(accountId: string, input: StartInput, options: { id?: string; limits: { concurrency: number } }): Promise<{ id: string }>;
}

export function requestStarter(table?: TableRef): RequestStarter {
  const deps: StartDeps = {
    requests: workflowRequests(table),
    versions: workflowVersions(table),
    chats: chatLookup(table),
    enqueue: enqueueNodeTasks,
    webhooks: webhookNotices(table),
  };
  return {
    check: requestChecker(table).check,
    start: (accountId, input, options) => startRequest(deps, accountId, input, undefined, options.limits, { id: options.id }),
  };
}

/**
 * The check of `RequestStarter` alone, for features that only check a
 * reference to a version and its entry nodes (a hook, a schedule's target): it
 * needs no queue, so their functions bundle none.
 */
export function requestChecker(table?: TableRef): Pick<RequestStarter, 'check'> {
  const deps = { versions: workflowVersions(table), chats: chatLookup(table) };
  return {
    async check(accountId, input) {
      await checkStartable(deps, accountId, input);
    },
  };
}
