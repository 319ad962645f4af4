import { createHash } from 'node:crypto';
import type { InteractionsService } from '#interactions/index.js';
import { METRIC } from '#platform/observability/metric-names.js';
import { countMetric } from '#platform/observability/metrics.js';
import type { WorkflowNode } from '#workflows/index.js';
import { type EventBuffer, emitNode, emitRequest } from './emit.js';
import type { NodeExecution, WorkflowRequest } from './model.js';
import type { WorkflowRequests } from './workflow-requests.js';

interface ApprovalDeps {
  requests: WorkflowRequests;
  interactions: InteractionsService;
  events?: EventBuffer;
}

/** One interaction per node execution, with an id derived from it, so redelivery cannot open a second. */
export function interactionIdFor(nodeExecutionId: string): string {
  const hex = createHash('sha256').update(`interaction:${nodeExecutionId}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** An approval node opens its interaction and holds itself and the request in `waiting`. */
export async function openApproval(deps: ApprovalDeps, request: WorkflowRequest, definition: WorkflowNode, node: NodeExecution): Promise<void> {
  const prompt = typeof definition.config.prompt === 'string' ? definition.config.prompt : `Approve "${definition.name}"?`;
  await deps.interactions.createOnce({
    id: interactionIdFor(node.id),
    type: 'approval',
    status: 'pending',
    prompt,
    run_id: null,
    workflow_request_id: request.id,
    node_execution_id: node.id,
    node_id: node.node_id,
    response: null,
    created_at: new Date().toISOString(),
    resolved_at: null,
    expires_at: null,
    account_id: request.account_id,
  });
  const waiting = await deps.requests.transitionNode(request.id, node.node_id, ['in_progress'], { status: 'waiting', lease_expires_at: 0 });
  if (!waiting) return;
  await emitNode(deps, waiting);
  const paused = await deps.requests.transitionRequest(request.id, ['pending', 'in_progress'], { status: 'waiting' });
  if (paused) await emitRequest(deps, paused);
}

/**
 * Settles a waiting approval node once its interaction is resolved: an
 * approval completes it, a rejection (or an expired or cancelled
 * interaction) fails it. The request goes back to `in_progress` when no
 * other node is waiting. Returns the settled node, or undefined if there is
 * nothing to do (still pending, or another delivery settled it).
 */
export async function resumeApproval(deps: ApprovalDeps, request: WorkflowRequest, node: NodeExecution): Promise<NodeExecution | undefined> {
  const interaction = await deps.interactions.get(interactionIdFor(node.id));
  if (!interaction || interaction.status === 'pending') return undefined;
  const approved = interaction.status === 'answered' && interaction.response?.approved === true;
  const at = new Date().toISOString();
  const set = approved
    ? { status: 'completed' as const, output_data: { approved: true, interaction_id: interaction.id }, completed_at: at }
    : {
        status: 'failed' as const,
        error: {
          code: interaction.status === 'answered' ? 'approval_rejected' : `interaction_${interaction.status}`,
          message: interaction.status === 'answered' ? 'The approval was rejected.' : `The interaction was ${interaction.status}.`,
        },
        failed_at: at,
      };
  if (!(await deps.requests.settleNode(request.id, node.node_id, ['waiting'], set))) return undefined;
  countMetric(METRIC.nodeExecutions, { status: set.status });
  const settled = { ...node, ...set };
  if (approved) {
    const others = (await deps.requests.listNodes(request.id)).filter((n) => n.status === 'waiting' && n.node_id !== node.node_id);
    if (others.length === 0) {
      const resumed = await deps.requests.transitionRequest(request.id, ['waiting'], { status: 'in_progress' });
      if (resumed) await emitRequest(deps, resumed);
    }
  }
  await emitNode(deps, settled);
  return settled;
}
