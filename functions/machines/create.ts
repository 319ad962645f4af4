import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { MachinesCreate } from '#machines/contracts/machines-create.js';
import { createMachine, machineView } from '#machines/machines.js';
import { type MachinesRepo, machinesRepo } from '#machines/machines-repository.js';
import { httpHandler } from '#platform/http/handler.js';
import { runIdempotent } from '#platform/http/idempotency.js';
import { json } from '#platform/http/responses.js';

/** POST /v1/machines: within the plan's machine limit; an Idempotency-Key, when sent, makes a retry return the first answer. */
export const makeHandler = (deps: { tokens: TokensRepo; machines: MachinesRepo } = { tokens: tokensRepo(), machines: machinesRepo() }) =>
  httpHandler(MachinesCreate, { auth: bearerAuth(deps.tokens), idempotency: runIdempotent }, async ({ principal, body }) => {
    const machine = await createMachine(deps.machines, principal, body);
    return json(201, machineView(machine));
  });

export const handler = makeHandler();
