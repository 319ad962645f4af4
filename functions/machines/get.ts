import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { MachinesGet } from '#machines/contracts/machines-get.js';
import { findMachine, machineView } from '#machines/machines.js';
import { type MachinesRepo, machinesRepo } from '#machines/machines-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';

/** GET /v1/machines/{id}: malformed, unknown and other accounts' ids are the same 404. */
export const makeHandler = (deps: { tokens: TokensRepo; machines: MachinesRepo } = { tokens: tokensRepo(), machines: machinesRepo() }) =>
  httpHandler(MachinesGet, { auth: bearerAuth(deps.tokens) }, async ({ principal, params }) => {
    const machine = await findMachine(deps.machines, principal.accountId, params.id ?? '');
    return json(200, machineView(machine));
  });

export const handler = makeHandler();
