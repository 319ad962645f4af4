import { type InteractionsRepo, interactionsRepo } from '../../lib/data/interactions.js';
import { interactionView, ownedInteraction } from '../../lib/engine/interactions.js';
import { bearerAuth } from '../../lib/http/bearer-auth.js';
import { httpHandler } from '../../lib/http/handler.js';
import { json } from '../../lib/http/responses.js';

export const makeHandler = (deps: { interactions: InteractionsRepo } = { interactions: interactionsRepo() }) =>
  httpHandler({ auth: bearerAuth() }, async ({ principal, params }) =>
    json(200, interactionView(await ownedInteraction(deps.interactions, principal.accountId, params.id))),
  );

export const handler = makeHandler();
