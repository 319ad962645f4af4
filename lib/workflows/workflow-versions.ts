import { randomUUID } from 'node:crypto';
import { type FieldError, ValidationError } from '#platform/errors.js';
import { checkDefinition, type DefinitionInput, type VersionReference } from './definition-validation.js';
import type { WorkflowVersion } from './model.js';
import { findWorkflow } from './workflows.js';
import type { WorkflowsRepo } from './workflows-repository.js';

/**
 * `workflow` nodes must name a version of the caller's account (another
 * account's is as unknown as a missing one), and their entry_node_ids must be
 * nodes of that version.
 */
async function referenceFaults(workflows: WorkflowsRepo, accountId: string, references: VersionReference[]): Promise<FieldError[]> {
  const ids = [...new Set(references.map((r) => r.versionId))];
  const found = new Map(await Promise.all(ids.map(async (id) => [id, await workflows.getVersion(accountId, id)] as const)));
  return references.flatMap((reference) => {
    const version = found.get(reference.versionId);
    if (!version) {
      return [
        {
          name: `${reference.configPointer}/workflow_version_id`,
          location: 'body' as const,
          reason: 'is not a workflow version of this account',
          code: 'not_found',
        },
      ];
    }
    const nodes = new Set(version.definition.nodes.map((n) => n.id));
    return reference.entryNodeIds.flatMap((id, k) =>
      nodes.has(id)
        ? []
        : [
            {
              name: `${reference.configPointer}/entry_node_ids/${k}`,
              location: 'body' as const,
              reason: 'is not a node of that workflow version',
              code: 'unknown_node',
            },
          ],
    );
  });
}

/**
 * Validates a definition (lib/workflows/definition-validation.ts) and stores it
 * as the workflow's next version. 404 for a workflow that is not the
 * caller's; 422 validation_failed with every fault otherwise.
 */
export async function createVersion(
  workflows: WorkflowsRepo,
  accountId: string,
  workflowId: string,
  input: { definition: DefinitionInput },
  now = new Date(),
): Promise<WorkflowVersion> {
  const workflow = await findWorkflow(workflows, accountId, workflowId);
  const check = await checkDefinition(input.definition);
  const errors = [...check.errors, ...(await referenceFaults(workflows, accountId, check.references))];
  if (errors.length > 0) throw new ValidationError(errors);
  return workflows.createVersion(workflow, {
    id: randomUUID(),
    definition: check.definition,
    entry_node_ids: check.entryNodeIds,
    created_at: now.toISOString(),
  });
}
