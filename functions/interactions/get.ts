import { bearerAuth } from '#accounts/bearer-auth.js';
import { InteractionsGet } from '#interactions/contracts/interactions-get.js';
import { interactionView, ownedInteraction } from '#interactions/interactions.js';
import { type InteractionsRepo, interactionsRepo } from '#interactions/interactions-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';

export const makeHandler = (deps: { interactions: InteractionsRepo } = { interactions: interactionsRepo() }) =>
  httpHandler(InteractionsGet, { auth: bearerAuth() }, async ({ principal, params }) =>
    json(200, interactionView(await ownedInteraction(deps.interactions, principal.accountId, params.id))),
  );

export const handler = makeHandler();
