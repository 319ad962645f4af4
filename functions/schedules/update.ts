import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { runIdempotent } from '#platform/http/idempotency.js';
import { json } from '#platform/http/responses.js';
import { SchedulesUpdate } from '#schedules/contracts/schedules-update.js';
import { scheduleView } from '#schedules/model.js';
import { type ScheduleDeps, updateSchedule } from '#schedules/schedules.js';
import { scheduleDeps } from '#schedules/schedules-deps.js';

/** PATCH /v1/schedules/{id}: the fields given, its timer put again; 404 as GET answers it. */
export const makeHandler = (deps: ScheduleDeps & { tokens: TokensRepo } = { ...scheduleDeps(), tokens: tokensRepo() }) =>
  httpHandler(SchedulesUpdate, { auth: bearerAuth(deps.tokens), idempotency: runIdempotent }, async ({ principal, params, body }) =>
    json(200, scheduleView(await updateSchedule(deps, principal.accountId, params.id ?? '', body))),
  );

export const handler = makeHandler();
