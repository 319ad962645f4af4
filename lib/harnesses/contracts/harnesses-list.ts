import { defineEndpoint } from '#platform/http/contract.js';
import { ListHarnessesQuery } from '../schemas.js';
import { HARNESSES_TAG } from './tags.js';

export const HarnessesList = defineEndpoint({
  id: 'HarnessesList',
  method: 'GET',
  path: '/v2/harnesses',
  handler: 'functions/harnesses/list.ts',
  auth: 'bearer',
  query: ListHarnessesQuery,
  table: 'read',
  serviceKey: true,
  operationId: 'listHarnesses',
  summary: 'List harnesses',
  description: 'The account’s harnesses, newest first, paged with `limit` (1 to 100, default 20) and `cursor` (`page.next_cursor`).',
  tags: [HARNESSES_TAG],
  responses: () =>
    import('../openapi/harnesses-responses.js').then(({ HarnessListSchema }) => ({
      200: { description: 'A page of harnesses, newest first.', schema: HarnessListSchema },
      400: 'A bad parameter or cursor (`invalid_parameter`, `cursor_invalid`, `cursor_filter_mismatch`).',
    })),
});
