import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';
import type { Common } from '#platform/openapi/common.js';
import { ListInteractionsQuery, RespondBody } from '../schemas.js';
import { InteractionList, InteractionSchema } from './interactions-responses.js';

export function registerInteractionPaths(registry: OpenAPIRegistry, common: Common): void {
  const { unauthorized, suspended, internal } = common.problems;
  const tokenUnauthorized = unauthorized('Missing, malformed, expired or revoked token (`unauthorized`).');
  const notFound = common.problem("No such interaction, a malformed id, or another account's (indistinguishable, `not_found`).");
  registry.registerPath({
    method: 'get',
    path: '/v2/interactions',
    operationId: 'listInteractions',
    summary: 'Pending questions and approvals',
    tags: ['Interactions'],
    security: common.bearer,
    request: { query: ListInteractionsQuery },
    responses: {
      200: { description: 'A page, newest first.', content: { 'application/json': { schema: InteractionList } } },
      400: common.problem('A bad parameter or cursor (`invalid_parameter`, `cursor_invalid`, `cursor_filter_mismatch`).'),
      401: tokenUnauthorized,
      403: suspended,
      500: internal,
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v2/interactions/{id}',
    operationId: 'getInteraction',
    summary: 'An interaction',
    tags: ['Interactions'],
    security: common.bearer,
    request: { params: z.object({ id: z.uuid() }) },
    responses: {
      200: { description: 'The interaction.', content: { 'application/json': { schema: InteractionSchema } } },
      401: tokenUnauthorized,
      403: suspended,
      404: notFound,
      500: internal,
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/v2/interactions/{id}/respond',
    operationId: 'respondToInteraction',
    summary: 'Answer an interaction',
    description:
      'Answers a pending interaction and resumes what waits on it: an approved approval node completes, a rejected one fails its node and the request. Requires `Idempotency-Key`; a retry with the same key and body returns the first answer with `Idempotency-Replayed: true`.',
    tags: ['Interactions'],
    security: common.bearer,
    request: {
      params: z.object({ id: z.uuid() }),
      headers: z.object({ 'Idempotency-Key': z.string().min(1).max(255) }),
      body: { content: { 'application/json': { schema: RespondBody } } },
    },
    responses: {
      200: {
        description: 'The answered interaction.',
        headers: common.headers.idempotencyReplayed,
        content: { 'application/json': { schema: InteractionSchema } },
      },
      400: common.problem(
        'Bad body (`invalid_json`, `invalid_body`, `unknown_field`), or a missing or malformed Idempotency-Key (`idempotency_key_required`, `idempotency_key_invalid`).',
      ),
      401: tokenUnauthorized,
      403: suspended,
      404: notFound,
      409: common.problem(
        '`interaction_not_pending`, or an idempotency conflict (`idempotency_key_conflict`; `idempotency_key_in_flight`, with `Retry-After`).',
        common.headers.retryAfter('sent with `idempotency_key_in_flight` (`1`)'),
      ),
      422: common.problem('`validation_failed`, or `interaction_type_mismatch`.'),
      500: internal,
    },
  });
}
