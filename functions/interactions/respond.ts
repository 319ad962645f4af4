import { bearerAuth } from '#accounts/bearer-auth.js';
import { enqueueNodeTasks } from '#execution/node-queue.js';
import { InteractionsRespond } from '#interactions/contracts/interactions-respond.js';
import { interactionView, type RespondDeps, respondToInteraction } from '#interactions/interactions.js';
import { interactionsRepo } from '#interactions/interactions-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { runIdempotent } from '#platform/http/idempotency.js';
import { json } from '#platform/http/responses.js';
import { runWaker } from '#runs/index.js';

/** A second answer is 409 interaction_not_pending; the wrong variant 422 interaction_type_mismatch. */
export const makeHandler = (deps: RespondDeps = { interactions: interactionsRepo(), enqueue: enqueueNodeTasks, wakeRun: runWaker() }) =>
  httpHandler(InteractionsRespond, { auth: bearerAuth(), idempotency: runIdempotent }, async ({ principal, params, body }) =>
    json(200, interactionView(await respondToInteraction(deps, principal.accountId, params.id, body))),
  );

export const handler = makeHandler();
