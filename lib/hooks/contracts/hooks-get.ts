import { defineEndpoint } from '#platform/http/contract.js';
import { HookIdParams } from './params.js';
import { HOOKS_TAG } from './tags.js';

export const HooksGet = defineEndpoint({
  id: 'HooksGet',
  method: 'GET',
  path: '/v1/hooks/{id}',
  handler: 'functions/hooks/get.ts',
  auth: 'bearer',
  params: HookIdParams,
  table: 'read',
  operationId: 'getHook',
  summary: 'Get a hook',
  description: 'The hook without its secret, which is shown only when it is created or rotated.',
  tags: [HOOKS_TAG],
  responses: () =>
    import('../openapi/hooks-responses.js').then(({ HookSchema, HOOK_NOT_FOUND }) => ({
      200: { description: 'The hook.', schema: HookSchema },
      404: HOOK_NOT_FOUND,
    })),
});
