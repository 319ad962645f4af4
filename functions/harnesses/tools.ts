import { bearerAuth } from '#accounts/bearer-auth.js';
import { type TokensRepo, tokensRepo } from '#accounts/tokens-repository.js';
import { HarnessesTools } from '#harnesses/contracts/harnesses-tools.js';
import { harnessTools, type ListServerTools } from '#harnesses/harness-tools.js';
import { findHarness } from '#harnesses/harnesses.js';
import { type HarnessesRepo, harnessesRepo } from '#harnesses/harnesses-repository.js';
import { listTools } from '#mcp/client.js';
import { httpHandler } from '#platform/http/handler.js';
import { json } from '#platform/http/responses.js';

/**
 * GET /v2/harnesses/{id}/tools: the built-in tools, every MCP server's tools
 * as it lists them now, and the harness's entries that name none; a server
 * that is unreachable or failing is 502 `upstream_unavailable` naming it.
 */
export const makeHandler = (
  deps: { tokens: TokensRepo; harnesses: HarnessesRepo; listTools: ListServerTools } = { tokens: tokensRepo(), harnesses: harnessesRepo(), listTools },
) =>
  httpHandler(HarnessesTools, { auth: bearerAuth(deps.tokens) }, async ({ principal, params }) => {
    const harness = await findHarness(deps.harnesses, principal.accountId, params.id ?? '');
    return json(200, { data: await harnessTools(harness.config, deps.listTools) });
  });

export const handler = makeHandler();
