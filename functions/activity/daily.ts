import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { type ActivityRepo, activityRepo, dailyActivity } from '#billing/activity-repository.js';
import { ActivityDaily } from '#billing/contracts/activity-daily.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';

/** GET /v1/activity/daily: the caller's last `days` UTC days, oldest first, zero-filled. */
export const makeHandler = (deps: { tokens: TokensRepo; activity: Pick<ActivityRepo, 'days'> } = { tokens: tokensRepo(), activity: activityRepo() }) =>
  httpHandler(ActivityDaily, { auth: bearerAuth(deps.tokens) }, async ({ principal, query }) => {
    return json(200, { data: await dailyActivity(deps.activity, principal.accountId, query.days), days: query.days });
  });

export const handler = makeHandler();
