import { defineEndpoint } from '#platform/http/contract.js';
import { HookIdParams } from './params.js';
import { HOOKS_TAG } from './tags.js';

export const HooksRotateSecret = defineEndpoint({
  id: 'HooksRotateSecret',
  method: 'POST',
  path: '/v1/hooks/{id}/rotate-secret',
  handler: 'functions/hooks/rotate-secret.ts',
  auth: 'bearer',
  params: HookIdParams,
  table: 'readwrite',
  serviceKey: true,
  operationId: 'rotateHookSecret',
  summary: 'Rotate a hook’s secret',
  description:
    'A new secret, shown only in this answer. Events signed with the secret it replaces keep verifying for 24 hours (`previous_secret_expires_at`), so a sender can switch without losing events; a second rotation within them makes the secret it replaces the previous one instead.',
  tags: [HOOKS_TAG],
  responses: () =>
    import('../openapi/hooks-responses.js').then(({ HookWithSecretSchema, HOOK_NOT_FOUND }) => ({
      200: { description: 'The hook, with its new secret (shown only here).', schema: HookWithSecretSchema },
      404: HOOK_NOT_FOUND,
    })),
});
