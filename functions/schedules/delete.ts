import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { noContent } from '#platform/http/responses.js';
import { SchedulesDelete } from '#schedules/contracts/schedules-delete.js';
import { deleteSchedule, type ScheduleDeps } from '#schedules/schedules.js';
import { scheduleDeps } from '#schedules/schedules-deps.js';

/** DELETE /v1/schedules/{id}: 204, its timer removed; 404 as GET answers it. */
export const makeHandler = (deps: Pick<ScheduleDeps, 'schedules' | 'timer'> & { tokens: TokensRepo } = { ...scheduleDeps(), tokens: tokensRepo() }) =>
  httpHandler(SchedulesDelete, { auth: bearerAuth(deps.tokens) }, async ({ principal, params }) => {
    await deleteSchedule(deps, principal.accountId, params.id ?? '');
    return noContent();
  });

export const handler = makeHandler();
