import { interactionsRepo } from '../../lib/data/interactions.js';
import { interactionView, type RespondDeps, respondToInteraction } from '../../lib/engine/interactions.js';
import { enqueueNodeTasks } from '../../lib/engine/node-queue.js';
import { bearerAuth } from '../../lib/http/bearer-auth.js';
import { httpHandler } from '../../lib/http/handler.js';
import { runIdempotent } from '../../lib/http/idempotency.js';
import { json } from '../../lib/http/responses.js';
import { RespondBody } from '../../lib/schemas/interactions.js';

/** A second answer is 409 interaction_not_pending; the wrong variant 422 interaction_type_mismatch. */
export const makeHandler = (deps: RespondDeps = { interactions: interactionsRepo(), enqueue: enqueueNodeTasks }) =>
  httpHandler({ auth: bearerAuth(), body: RespondBody, idempotency: runIdempotent }, async ({ principal, params, body }) =>
    json(200, interactionView(await respondToInteraction(deps, principal.accountId, params.id, body))),
  );

export const handler = makeHandler();
