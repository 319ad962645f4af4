import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { runIdempotent } from '#platform/http/idempotency.js';
import { json } from '#platform/http/responses.js';
import { SchedulesTrigger } from '#schedules/contracts/schedules-trigger.js';
import { type FireDeps, fire } from '#schedules/fire.js';
import { fireDeps } from '#schedules/fire-deps.js';
import { scheduleView } from '#schedules/model.js';
import { findSchedule } from '#schedules/schedules.js';

/**
 * POST /v1/schedules/{id}/trigger: one firing now, through the firings'
 * own use case; a refusal is recorded on the schedule, then answered.
 */
export const makeHandler = (deps: FireDeps & { tokens: TokensRepo } = { ...fireDeps(), tokens: tokensRepo() }) =>
  httpHandler(SchedulesTrigger, { auth: bearerAuth(deps.tokens), idempotency: runIdempotent }, async ({ principal, params }) => {
    const schedule = await findSchedule(deps.schedules, principal.accountId, params.id ?? '');
    const fired = await fire(deps, schedule, (deps.clock ?? (() => new Date()))().toISOString());
    if (fired.refusal) throw fired.refusal;
    return json(201, { schedule: scheduleView(fired.schedule), firing: fired.outcome });
  });

export const handler = makeHandler();
