import { accountLookup, requestRateLimiter } from '#accounts/index.js';
import { requestStarter } from '#execution/index.js';
import { HooksEvents } from '#hooks/contracts/hooks-events.js';
import { hookEventsRepo } from '#hooks/hook-events-repository.js';
import { hooksRepo } from '#hooks/hooks-repository.js';
import { type ReceiveDeps, receiveEvent } from '#hooks/receive-event.js';
import { hookSecrets } from '#hooks/secrets.js';
import { httpHandler } from '#platform/http/handler.js';
import { rawBody } from '#platform/http/parse.js';
import { json } from '#platform/http/responses.js';
import { usageMeter } from '#usage/index.js';

/**
 * POST /v1/hooks/{id}/events: no bearer token; the Standard Webhooks
 * signature authenticates the event, which counts against the account's
 * request rate and starts a workflow request as any creation does (usage,
 * the ceiling on work in progress). A replayed
 * webhook-id answers the first answer.
 */
export const makeHandler = (
  deps: ReceiveDeps = {
    hooks: hooksRepo(),
    events: hookEventsRepo(),
    secrets: hookSecrets(),
    starter: requestStarter(),
    usage: usageMeter(),
    rates: requestRateLimiter(),
    accounts: accountLookup(),
  },
) =>
  httpHandler(HooksEvents, { auth: 'none' }, async ({ event, params }) => {
    const sent = event.body ?? '';
    const bytes = event.isBase64Encoded ? Buffer.from(sent, 'base64').length : Buffer.byteLength(sent, 'utf8');
    const answer = await receiveEvent(deps, { hookId: params.id ?? '', rawBody: rawBody(event), bytes, headers: event.headers ?? {} });
    return json(202, { workflow_request_id: answer.workflow_request_id });
  });

export const handler = makeHandler();
