/**
 * What other features may use of interactions: the model types, and the
 * service the engine opens, reads and resolves a node's interaction with.
 */
import type { TableRef } from '#platform/table/table.js';
import { type InteractionsRepo, interactionsRepo } from './interactions-repository.js';

export { type Interaction, type InteractionStatus, type InteractionType, statusAt } from './interactions-repository.js';

export type InteractionsService = Pick<InteractionsRepo, 'createOnce' | 'get' | 'resolve'>;
export const interactionsService = (table?: TableRef): InteractionsService => interactionsRepo(table);
