import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';
import { SchedulesGet } from '#schedules/contracts/schedules-get.js';
import { scheduleView } from '#schedules/model.js';
import { findSchedule } from '#schedules/schedules.js';
import { type SchedulesRepo, schedulesRepo } from '#schedules/schedules-repository.js';

/** GET /v1/schedules/{id}: malformed, unknown and other accounts' ids are the same 404. */
export const makeHandler = (deps: { tokens: TokensRepo; schedules: SchedulesRepo } = { tokens: tokensRepo(), schedules: schedulesRepo() }) =>
  httpHandler(SchedulesGet, { auth: bearerAuth(deps.tokens) }, async ({ principal, params }) =>
    json(200, scheduleView(await findSchedule(deps.schedules, principal.accountId, params.id ?? ''))),
  );

export const handler = makeHandler();
