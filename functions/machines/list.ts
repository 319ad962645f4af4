import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { MachinesList } from '#machines/contracts/machines-list.js';
import { machineView } from '#machines/machines.js';
import { type MachinesRepo, machinesRepo } from '#machines/machines-repository.js';
import { MACHINE_ID } from '#machines/model.js';
import { CursorInvalidError } from '#platform/errors.js';
import { decodeCursor, encodeCursor } from '#platform/http/cursor.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';

/** GET /v1/machines: newest first, paged by an opaque cursor holding the last machine id. */
export const makeHandler = (deps: { tokens: TokensRepo; machines: MachinesRepo } = { tokens: tokensRepo(), machines: machinesRepo() }) =>
  httpHandler(MachinesList, { auth: bearerAuth(deps.tokens) }, async ({ principal, query }) => {
    const scope = `machines:${principal.accountId}`;
    const after = query.cursor ? (await decodeCursor(query.cursor, scope, {})).after : undefined;
    if (query.cursor && (typeof after !== 'string' || !MACHINE_ID.test(after))) throw new CursorInvalidError();
    const page = await deps.machines.list(principal.accountId, { limit: query.limit, after: after as string | undefined });
    return json(200, {
      machines: page.machines.map(machineView),
      next_cursor: page.nextAfter ? await encodeCursor(scope, {}, { after: page.nextAfter }) : null,
      has_more: page.nextAfter !== undefined,
    });
  });

export const handler = makeHandler();
