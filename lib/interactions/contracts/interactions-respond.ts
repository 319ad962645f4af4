import { defineEndpoint } from '#platform/http/contract.js';
import { RespondBody } from '../schemas.js';
import { InteractionIdParams } from './params.js';
import { INTERACTIONS_TAG } from './tags.js';

export const InteractionsRespond = defineEndpoint({
  id: 'InteractionsRespond',
  method: 'POST',
  path: '/v2/interactions/{id}/respond',
  handler: 'functions/interactions/respond.ts',
  auth: 'bearer',
  params: InteractionIdParams,
  body: RespondBody,
  idempotency: 'required',
  table: 'readwrite',
  sends: true,
  operationId: 'respondToInteraction',
  summary: 'Answer an interaction',
  description:
    'Answers a pending interaction and resumes what waits on it: an approved approval node completes, a rejected one fails its node and the request. Requires `Idempotency-Key`; a retry with the same key and body returns the first answer with `Idempotency-Replayed: true`.',
  tags: [INTERACTIONS_TAG],
  responses: () =>
    import('../openapi/interactions-responses.js').then(({ InteractionSchema, INTERACTION_NOT_FOUND }) => ({
      200: { description: 'The answered interaction.', schema: InteractionSchema },
      400: 'Bad body (`invalid_json`, `invalid_body`, `unknown_field`), or a missing or malformed Idempotency-Key (`idempotency_key_required`, `idempotency_key_invalid`).',
      404: INTERACTION_NOT_FOUND,
      409: 'The interaction was answered, has expired or was cancelled (`interaction_not_pending`), or an idempotency conflict (`idempotency_key_conflict`; `idempotency_key_in_flight`, with `Retry-After`).',
      422: 'A field is missing or malformed (`validation_failed`), or the response’s `type` is not the interaction’s (`interaction_type_mismatch`).',
    })),
});
