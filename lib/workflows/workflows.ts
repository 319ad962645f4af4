import { randomUUID } from 'node:crypto';
import { NotFoundError } from '#platform/errors.js';
import type { Workflow, WorkflowVersion } from './model.js';
import type { WorkflowsRepo } from './workflows-repository.js';

/**
 * Workflows and their versions as the API shows them, and the lookups that
 * answer 404 alike for malformed, unknown and other accounts' ids. Version
 * creation (which needs the definition validator and JSONata) is in
 * workflow-versions.ts, so that the read handlers do not bundle it.
 */

export const workflowView = (workflow: Workflow) => ({
  id: workflow.id,
  name: workflow.name,
  description: workflow.description,
  latest_version_id: workflow.latest_version_id,
  created_at: workflow.created_at,
  updated_at: workflow.updated_at,
});

export const versionView = (version: WorkflowVersion) => ({
  id: version.id,
  workflow_id: version.workflow_id,
  version: version.version,
  definition: version.definition,
  entry_node_ids: version.entry_node_ids,
  created_at: version.created_at,
});

export const entryNodesView = (version: WorkflowVersion) => {
  const entry = new Set(version.entry_node_ids);
  return {
    entry_nodes: version.definition.nodes.filter((node) => entry.has(node.id)).map((node) => ({ id: node.id, name: node.name, type: node.type })),
  };
};

export async function createWorkflow(
  workflows: WorkflowsRepo,
  accountId: string,
  input: { name: string; description?: string | null },
  now = new Date(),
): Promise<Workflow> {
  return workflows.create({ id: randomUUID(), accountId, name: input.name, description: input.description ?? null, now: now.toISOString() });
}

export async function findWorkflow(workflows: WorkflowsRepo, accountId: string, workflowId: string): Promise<Workflow> {
  const workflow = await workflows.get(accountId, workflowId);
  if (!workflow) throw new NotFoundError('No such workflow.');
  return workflow;
}

export async function findVersion(workflows: WorkflowsRepo, accountId: string, versionId: string): Promise<WorkflowVersion> {
  const version = await workflows.getVersion(accountId, versionId);
  if (!version) throw new NotFoundError('No such workflow version.');
  return version;
}

/** The newest version of a workflow; 404 when the workflow has none yet. */
export async function latestVersion(workflows: WorkflowsRepo, accountId: string, workflowId: string): Promise<WorkflowVersion> {
  const workflow = await findWorkflow(workflows, accountId, workflowId);
  const version = workflow.latest_version_id ? await workflows.getVersion(accountId, workflow.latest_version_id) : undefined;
  if (!version) throw new NotFoundError('The workflow has no version yet.');
  return version;
}
