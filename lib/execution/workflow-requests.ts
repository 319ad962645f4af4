import { ConflictError } from '#platform/errors.js';
import { defaultTable, type TableRef } from '#platform/table/table.js';
import { type Settlements, settlements } from '#settlement/index.js';
import { type EndOptions, endRequest } from './end-request.js';
import type { NODE_TERMINAL, NodeCost, NodeExecution, NodeStatus, RedriveBase, RequestStatus, WorkflowRequest } from './model.js';
import type { NodeShape } from './node-skeleton.js';
import { type WorkflowRequestsRepo, workflowRequestsRepo } from './workflow-requests-repository.js';

/** A cost with tokens in it: a model was called, and the settle records it into the usage windows at once. */
const calledModel = (cost: NodeCost): boolean => cost.costMicroUsd > 0 && cost.inputTokens + cost.outputTokens > 0;

/**
 * Workflow requests as the engine changes them: the repository (one entity:
 * the request, its nodes, its events) with the three changes that move money
 * or the account's counters going through settlement (lib/settlement):
 * the start (its day's count, its slot), a node's settle that records a
 * model's cost, and the end.
 */
export function workflowRequests(table: TableRef = defaultTable(), settlement: Settlements = settlements(table)) {
  const repo = workflowRequestsRepo(table);
  return {
    ...repo,

    /**
     * Writes the request with its count in the account's daily activity
     * (`request_count` of its creation day: counted exactly when it exists)
     * and, with a `concurrencyLimit` (a root request), one of the account's
     * slots of work in progress, which its end gives back; then its node
     * items (repository: putNodes), before anything is enqueued. An id that
     * exists already is a ConflictError, counted no second time; with the
     * account at its limit nothing is written and the answer is 429
     * `rate_limited`.
     */
    async create(request: WorkflowRequest, nodes: NodeExecution[], unwritten: NodeShape[] = [], concurrencyLimit?: number): Promise<void> {
      const started = await settlement.start({
        accountId: request.account_id,
        subject: [repo.requestPut(request, concurrencyLimit !== undefined)],
        at: request.created_at,
        activity: { requests: 1 },
        ...(concurrencyLimit === undefined ? {} : { concurrencyLimit }),
      });
      if (started === 'refused') throw new ConflictError('workflow_request_exists', `Workflow request ${request.id} exists already.`);
      await repo.putNodes(request, nodes, unwritten);
    },

    /**
     * A node's settle (repository: settleUnmetered). One that called a model
     * records its cost in the same transaction (settlement): the node
     * settled with its usage, the cost in the account's windows and in the
     * request's totals. Refused by the node's guard: false, nothing recorded.
     */
    async settleNode(
      requestId: string,
      nodeId: string,
      from: readonly NodeStatus[],
      set: Partial<NodeExecution> & { status: (typeof NODE_TERMINAL)[number] },
      attempt?: number,
      create?: NodeExecution,
      cost?: NodeCost,
    ): Promise<boolean> {
      const node = { requestId, nodeId, from, set, attempt, create };
      if (cost === undefined || !calledModel(cost)) return repo.settleUnmetered(node, cost?.costMicroUsd ?? 0);
      const settled = await settlement.settle({
        accountId: cost.accountId,
        usageMicroUsd: cost.costMicroUsd,
        subject: ({ extraMicroUsd }) => ({
          items: repo.meteredSettleItems(node, cost, extraMicroUsd),
          result: true,
        }),
      });
      return settled.settled;
    },

    /**
     * Moves an ended request back to `in_progress` for its redrive number
     * `redrive` (repository: redriveUpdate), with, for a root request
     * (`concurrencyLimit`), one of the account's slots of work in progress
     * again; nothing is counted in the day (the request was, when it was
     * created). False when the request had changed (another redrive, or not
     * ended); 429 `rate_limited` with the account at its limit.
     */
    async startRedrive(request: WorkflowRequest, redrive: number, base: RedriveBase, at: string, concurrencyLimit?: number): Promise<boolean> {
      const started = await settlement.start({
        accountId: request.account_id,
        subject: [repo.redriveUpdate(request, redrive, base, concurrencyLimit !== undefined, at)],
        at,
        activity: {},
        ...(concurrencyLimit === undefined ? {} : { concurrencyLimit }),
      });
      return started === 'started';
    },

    /** Ends the request with what its end moves (./end-request.ts). */
    endRequest: (requestId: string, from: readonly RequestStatus[], set: Partial<WorkflowRequest> & { status: RequestStatus }, options?: EndOptions) =>
      endRequest({ repo, settlement }, requestId, from, set, options),
  };
}

export type WorkflowRequests = ReturnType<typeof workflowRequests>;
export type { WorkflowRequestsRepo };
