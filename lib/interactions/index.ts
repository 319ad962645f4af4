/**
 * What other features may use of interactions: the model types, and the
 * service the engine opens, reads and resolves a node's interaction with.
 */
import type { TableRef } from '#platform/table/table.js';
import { interactionsRepo } from './interactions-repository.js';

export type { Interaction, InteractionStatus, InteractionType } from './interactions-repository.js';

export const interactionsService = (table?: TableRef) => {
  const repo = interactionsRepo(table);
  return { createOnce: repo.createOnce.bind(repo), get: repo.get.bind(repo), resolve: repo.resolve.bind(repo) };
};
export type InteractionsService = ReturnType<typeof interactionsService>;
