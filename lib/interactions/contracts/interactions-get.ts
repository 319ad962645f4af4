import { defineEndpoint } from '#platform/http/contract.js';
import { InteractionIdParams } from './params.js';
import { INTERACTIONS_TAG } from './tags.js';

export const InteractionsGet = defineEndpoint({
  id: 'InteractionsGet',
  method: 'GET',
  path: '/v2/interactions/{id}',
  handler: 'functions/interactions/get.ts',
  auth: 'bearer',
  params: InteractionIdParams,
  table: 'read',
  operationId: 'getInteraction',
  summary: 'An interaction',
  description:
    'A question (`answer`, from a run’s `ask_user`) or an approval (`approval`, before a tool call that requires one, or an approval node of a workflow request), `pending` until answered (POST …/respond), expired or cancelled; then `response` holds the answer.',
  tags: [INTERACTIONS_TAG],
  responses: () =>
    import('../openapi/interactions-responses.js').then(({ InteractionSchema, INTERACTION_NOT_FOUND }) => ({
      200: { description: 'The interaction.', schema: InteractionSchema },
      404: INTERACTION_NOT_FOUND,
    })),
});
