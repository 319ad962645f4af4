import { ConflictError, DomainError, NotFoundError } from '#platform/errors.js';
import { isUuid } from '#platform/uuid.js';
import type { InteractionsRepo } from './interactions-repository.js';
import { type Interaction, statusAt } from './model.js';

/** Wakes the node an answered interaction was holding (execution's node queue, wired by the handler). */
export type WakeNodes = (tasks: Array<{ request_id: string; node_id: string }>) => Promise<void>;

export interface RespondDeps {
  interactions: InteractionsRepo;
  enqueue: WakeNodes;
  /** Wakes the run an answered interaction was holding (the runs feature's queue, wired by the handler). */
  wakeRun: (runId: string) => Promise<void>;
}

export type InteractionAnswer = { type: 'approval'; approved: boolean } | { type: 'answer'; text: string };

/** The interaction as the API shows it (decisions.md, Interaction). */
export const interactionView = (i: Interaction) => ({
  id: i.id,
  type: i.type,
  status: statusAt(i, new Date()),
  prompt: i.prompt,
  run_id: i.run_id,
  workflow_request_id: i.workflow_request_id,
  node_execution_id: i.node_execution_id,
  response: i.response,
  created_at: i.created_at,
  resolved_at: i.resolved_at,
  expires_at: i.expires_at,
});

export async function ownedInteraction(interactions: InteractionsRepo, accountId: string, id: string | undefined): Promise<Interaction> {
  const interaction = id && isUuid(id) ? await interactions.get(id) : undefined;
  if (!interaction || interaction.account_id !== accountId) throw new NotFoundError('No interaction with that id.');
  return interaction;
}

const notPending = (i: Interaction) =>
  new ConflictError('interaction_not_pending', `The interaction is ${statusAt(i, new Date())} and cannot be answered again.`);

/**
 * Answers a pending interaction once, then wakes the node waiting on it (its
 * worker settles the node and resumes the request).
 */
export async function respondToInteraction(deps: RespondDeps, accountId: string, id: string | undefined, answer: InteractionAnswer): Promise<Interaction> {
  const interaction = await ownedInteraction(deps.interactions, accountId, id);
  if (statusAt(interaction, new Date()) !== 'pending') throw notPending(interaction);
  if (answer.type !== interaction.type) {
    throw new DomainError('invalid', 'interaction_type_mismatch', `This interaction expects a response of type ${interaction.type}, not ${answer.type}.`, {
      errors: [{ name: '/type', location: 'body', reason: `must be ${interaction.type}`, code: 'interaction_type_mismatch' }],
    });
  }
  const response = answer.type === 'approval' ? { approved: answer.approved } : { text: answer.text };
  const resolved = await deps.interactions.resolve(interaction.id, 'answered', response);
  if (!resolved) throw notPending((await deps.interactions.get(interaction.id)) ?? interaction);
  if (resolved.workflow_request_id && resolved.node_id) await deps.enqueue([{ request_id: resolved.workflow_request_id, node_id: resolved.node_id }]);
  if (resolved.run_id) await deps.wakeRun(resolved.run_id);
  return resolved;
}
