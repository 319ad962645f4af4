import { defineEndpoint } from '#platform/http/contract.js';
import { MAX_HOOKS_PER_ACCOUNT } from '../model.js';
import { CreateHookBody } from '../schemas/hooks.js';
import { HOOKS_TAG } from './tags.js';

export const HooksCreate = defineEndpoint({
  id: 'HooksCreate',
  method: 'POST',
  path: '/v1/hooks',
  handler: 'functions/hooks/create.ts',
  auth: 'bearer',
  body: CreateHookBody,
  idempotency: 'optional',
  table: 'readwrite',
  serviceKey: true,
  operationId: 'createHook',
  summary: 'Create a hook',
  description: [
    'A hook starts a workflow request of `workflow_version_id` at `entry_node_ids` for every event posted to its `url` (`POST /v1/hooks/{id}/events`) and signed with its `secret`, per Standard Webhooks. The version and entry nodes are checked as running them is checked (`POST /v1/workflow-requests/run`): another account’s or an unknown version, an entry node that is not the version’s, or a node this service cannot run is the same 422.',
    'The `secret` is shown only in this answer (and in a rotation’s). The service does not store it: it is derived again from a service key when events are checked.',
    'An `Idempotency-Key` header is optional here; with one, a retry returns the first answer with `Idempotency-Replayed: true`, secret included.',
    `An account has at most ${MAX_HOOKS_PER_ACCOUNT} hooks, exactly, also under concurrent creates: past it the answer is 409 \`hook_limit_reached\`, whose problem document carries the \`limit\`. Deleting a hook frees its place.`,
  ].join('\n\n'),
  tags: [HOOKS_TAG],
  responses: () =>
    import('../openapi/hooks-responses.js').then(({ HookWithSecretSchema }) => ({
      201: { description: 'The hook, with its secret (shown only here).', schema: HookWithSecretSchema },
      400: 'Not JSON, not an object, an unknown field (`invalid_json`, `invalid_body`, `unknown_field`), or a malformed Idempotency-Key (`idempotency_key_invalid`).',
      409: `The account has ${MAX_HOOKS_PER_ACCOUNT} hooks already (\`hook_limit_reached\`; \`limit\` names the number); or the Idempotency-Key was reused with another body (\`idempotency_key_conflict\`), or is still in flight (\`idempotency_key_in_flight\`, with \`Retry-After\`).`,
      422: 'A field is missing or malformed, or refers to something unusable (`validation_failed`; `errors` name it): another account’s or an unknown version, entry nodes that are not the version’s or repeated, nodes that cannot run.',
    })),
});
