import { defineEndpoint } from '#platform/http/contract.js';
import { ListInteractionsQuery } from '../schemas.js';
import { INTERACTIONS_TAG } from './tags.js';

export const InteractionsList = defineEndpoint({
  id: 'InteractionsList',
  method: 'GET',
  path: '/v2/interactions',
  handler: 'functions/interactions/list.ts',
  auth: 'bearer',
  query: ListInteractionsQuery,
  table: 'read',
  serviceKey: true,
  operationId: 'listInteractions',
  summary: 'Pending questions and approvals',
  description:
    'The account’s interactions, newest first, optionally only those of a run (`run_id`), of a workflow request (`workflow_request_id`) or in one `status`, paged with `limit` (1 to 100, default 20) and `cursor`; a cursor used with other filters is 400 `cursor_filter_mismatch`.',
  tags: [INTERACTIONS_TAG],
  responses: () =>
    import('../openapi/interactions-responses.js').then(({ InteractionList }) => ({
      200: { description: 'A page, newest first.', schema: InteractionList },
      400: 'A bad parameter or cursor (`invalid_parameter`, `cursor_invalid`, `cursor_filter_mismatch`).',
    })),
});
