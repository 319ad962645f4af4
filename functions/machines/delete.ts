import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { MachinesDelete } from '#machines/contracts/machines-delete.js';
import { type MachinesRepo, machinesRepo } from '#machines/machines-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { noContent } from '#platform/http/responses.js';

/** DELETE /v1/machines/{id}: 204 and a freed slot; 404 as GET answers it; 409 `machine_busy` while a run is on it. */
export const makeHandler = (deps: { tokens: TokensRepo; machines: MachinesRepo } = { tokens: tokensRepo(), machines: machinesRepo() }) =>
  httpHandler(MachinesDelete, { auth: bearerAuth(deps.tokens) }, async ({ principal, params }) => {
    await deps.machines.delete(principal.accountId, params.id ?? '');
    return noContent();
  });

export const handler = makeHandler();
