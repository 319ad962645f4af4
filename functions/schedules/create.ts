import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { runIdempotent } from '#platform/http/idempotency.js';
import { json } from '#platform/http/responses.js';
import { SchedulesCreate } from '#schedules/contracts/schedules-create.js';
import { scheduleView } from '#schedules/model.js';
import { createSchedule, type ScheduleDeps } from '#schedules/schedules.js';
import { scheduleDeps } from '#schedules/schedules-deps.js';

/** POST /v1/schedules: 201 with its next firing; the target checked as a firing would; 409 past 50 an account. */
export const makeHandler = (deps: ScheduleDeps & { tokens: TokensRepo } = { ...scheduleDeps(), tokens: tokensRepo() }) =>
  httpHandler(SchedulesCreate, { auth: bearerAuth(deps.tokens), idempotency: runIdempotent }, async ({ principal, body }) =>
    json(201, scheduleView(await createSchedule(deps, principal.accountId, body))),
  );

export const handler = makeHandler();
