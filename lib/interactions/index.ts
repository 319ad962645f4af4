/**
 * What other features may use of interactions: the model types, and the
 * service the engine opens, reads and resolves a node's interaction with.
 */
import { defaultTable, type TableRef } from '#platform/table/table.js';
import { type AnnounceEvent, webhookNotices } from '#webhooks/index.js';
import { recordInteractionCreated } from './created-event.js';
import { type InteractionsRepo, interactionsRepo } from './interactions-repository.js';

export { type Interaction, type InteractionStatus, type InteractionType, statusAt } from './model.js';

export type InteractionsService = Pick<InteractionsRepo, 'createOnce' | 'get' | 'resolve'>;

/** The repository's, but a creation also records and announces its `interaction.created` event (created-event.ts). */
export const interactionsService = (table: TableRef = defaultTable(), announce: AnnounceEvent = webhookNotices().announce): InteractionsService => {
  const repo = interactionsRepo(table);
  return {
    get: (id) => repo.get(id),
    resolve: (id, status, response) => repo.resolve(id, status, response),
    async createOnce(interaction) {
      const created = await repo.createOnce(interaction);
      await recordInteractionCreated(table, created, announce);
      return created;
    },
  };
};
