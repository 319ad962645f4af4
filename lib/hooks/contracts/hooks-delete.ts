import { defineEndpoint } from '#platform/http/contract.js';
import { HookIdParams } from './params.js';
import { HOOKS_TAG } from './tags.js';

export const HooksDelete = defineEndpoint({
  id: 'HooksDelete',
  method: 'DELETE',
  path: '/v1/hooks/{id}',
  handler: 'functions/hooks/delete.ts',
  auth: 'bearer',
  params: HookIdParams,
  table: 'readwrite',
  operationId: 'deleteHook',
  summary: 'Delete a hook',
  description:
    'Its events URL answers 404 from then on; requests it already started go on. Deleting a hook that is already gone answers 404, so of concurrent deletes exactly one answers 204.',
  tags: [HOOKS_TAG],
  responses: () =>
    import('../openapi/hooks-responses.js').then(({ HOOK_NOT_FOUND }) => ({
      204: { description: 'Deleted.' },
      404: HOOK_NOT_FOUND,
    })),
});
