import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { SERVED_ROUTES } from '#app/served-routes.generated.js';
import { streamingHttpHandler } from '#platform/http/handler.js';
import { header, json, noContent } from '#platform/http/responses.js';
import { EVENT_STREAM_HEADERS, streamBody } from '#platform/http/streaming.js';
import { serviceKey } from '#platform/secrets/service-key.js';
import { RunsEvents } from '#runs/contracts/runs-events.js';
import { eventsMediaType, type RunEventsDeps, runEventsPage } from '#runs/run-events.js';
import { type RunEventsStreamDeps, runEventsStream, runEventsStreamDeps } from '#runs/run-events-stream.js';

/**
 * `GET /v2/runs/{id}/events`, served by the response-streaming function
 * URL: a page of the run's events, or their stream, as `Accept` asks
 * (lib/runs/run-events.ts, run-events-stream.ts).
 */
export type RunEventsHandlerDeps = RunEventsStreamDeps & RunEventsDeps & { tokens: TokensRepo };

/** Both answers depend on Accept: a cache in front must not serve one for the other. */
const VARY = { Vary: 'Accept' };

export const makeHandler = (deps: RunEventsHandlerDeps = { ...runEventsStreamDeps(), serviceKey: serviceKey(), tokens: tokensRepo() }) =>
  streamingHttpHandler(RunsEvents, { auth: bearerAuth(deps.tokens), served: SERVED_ROUTES }, async ({ event, context, principal, params, query }) => {
    const runId = params.id ?? '';
    if (eventsMediaType(header(event.headers, 'accept')) === 'json') {
      return json(200, await runEventsPage(deps, principal.accountId, runId, query), VARY);
    }
    const lastEventId = header(event.headers, 'last-event-id');
    const stream = await runEventsStream(deps, principal.accountId, runId, lastEventId, context.getRemainingTimeInMillis());
    if (stream.kind === 'caught_up') return noContent(VARY);
    return { statusCode: 200, headers: { ...EVENT_STREAM_HEADERS, ...VARY }, body: streamBody(stream.frames) };
  });

export const handler = makeHandler();
