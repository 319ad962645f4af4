import type { WorkflowRequest } from './model.js';
import type { EnqueueNodeTasks } from './node-queue.js';

/** When a child request ends, its parent's node task runs again to pick up the result. */
export async function wakeParent(deps: { enqueue: EnqueueNodeTasks }, child: WorkflowRequest): Promise<void> {
  if (child.parent_node_id && child.parent_workflow_request_id !== child.id) {
    await deps.enqueue([{ request_id: child.parent_workflow_request_id, node_id: child.parent_node_id }]);
  }
}
