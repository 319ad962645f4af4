import { defineEndpoint } from '#platform/http/contract.js';
import { ListHooksQuery } from '../schemas/hooks.js';
import { HOOKS_TAG } from './tags.js';

export const HooksList = defineEndpoint({
  id: 'HooksList',
  method: 'GET',
  path: '/v1/hooks',
  handler: 'functions/hooks/list.ts',
  auth: 'bearer',
  query: ListHooksQuery,
  table: 'read',
  serviceKey: true,
  operationId: 'listHooks',
  summary: 'List hooks',
  description: 'Newest first, paged with `limit` and `cursor`. Never shows a secret.',
  tags: [HOOKS_TAG],
  responses: () =>
    import('../openapi/hooks-responses.js').then(({ ListHooksResponse }) => ({
      200: { description: 'A page of hooks.', schema: ListHooksResponse },
      400: '`limit` out of range (`invalid_parameter`), or a bad cursor (`cursor_invalid`, `cursor_filter_mismatch`).',
    })),
});
