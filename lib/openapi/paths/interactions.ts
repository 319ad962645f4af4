import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';
import { ListInteractionsQuery, RespondBody } from '../../schemas/interactions.js';
import { InteractionList, InteractionSchema } from '../responses/interactions.js';
import type { Common } from './common.js';

export function registerInteractionPaths(registry: OpenAPIRegistry, common: Common): void {
  const unauthorized = common.problem('Missing, malformed, expired or revoked token.');
  const notFound = common.problem('No such interaction, a malformed id, or another account\'s (indistinguishable).');
  registry.registerPath({
    method: 'get',
    path: '/v2/interactions',
    operationId: 'listInteractions',
    summary: 'Pending questions and approvals',
    security: common.bearer,
    request: { query: ListInteractionsQuery },
    responses: { 200: { description: 'A page, newest first.', content: { 'application/json': { schema: InteractionList } } }, 400: common.problem('A bad parameter or cursor.'), 401: unauthorized },
  });
  registry.registerPath({
    method: 'get',
    path: '/v2/interactions/{id}',
    operationId: 'getInteraction',
    summary: 'An interaction',
    security: common.bearer,
    request: { params: z.object({ id: z.uuid() }) },
    responses: { 200: { description: 'The interaction.', content: { 'application/json': { schema: InteractionSchema } } }, 401: unauthorized, 404: notFound },
  });
  registry.registerPath({
    method: 'post',
    path: '/v2/interactions/{id}/respond',
    operationId: 'respondToInteraction',
    summary: 'Answer an interaction',
    description:
      'Answers a pending interaction and resumes what waits on it: an approved approval node completes, a rejected one fails its node and the request. Requires `Idempotency-Key`.',
    security: common.bearer,
    request: {
      params: z.object({ id: z.uuid() }),
      headers: z.object({ 'Idempotency-Key': z.string().min(1).max(255) }),
      body: { content: { 'application/json': { schema: RespondBody } } },
    },
    responses: {
      200: { description: 'The answered interaction.', content: { 'application/json': { schema: InteractionSchema } } },
      400: common.problem('Bad body or Idempotency-Key.'),
      401: unauthorized,
      404: notFound,
      409: common.problem('interaction_not_pending, or an idempotency conflict.'),
      422: common.problem('validation_failed, or interaction_type_mismatch.'),
    },
  });
}
