import { defineEndpoint } from '#platform/http/contract.js';
import { HarnessIdParams } from './params.js';
import { HARNESSES_TAG } from './tags.js';

export const HarnessesTools = defineEndpoint({
  id: 'HarnessesTools',
  method: 'GET',
  path: '/v2/harnesses/{id}/tools',
  handler: 'functions/harnesses/tools.ts',
  auth: 'bearer',
  params: HarnessIdParams,
  table: 'read',
  outbound: true,
  operationId: 'listHarnessTools',
  summary: 'The tools a run of a harness would have',
  description: [
    'The built-in `ask_user` (arguments `{question}`; it opens an `answer` interaction and the answer is the result), then every tool each MCP server of the harness lists **now**, offered as `<server name>__<tool name>` (in the harness’s server order, then the server’s), then every harness.json `tools` entry that names no such tool, with `source: "harness"` and `available: false` (a run does not offer it). `require_approval` comes from the `tools` entry that names the tool (false without one).',
    'The servers are asked at once, over MCP’s streamable HTTP transport (JSON or SSE answers) through the outbound address guard (`https:` only and no non-public address, unless the operator allows them), each within 10 seconds. One that is unreachable, refused by the guard, answers an HTTP error or no valid MCP, or is too slow, answers 502 `upstream_unavailable` whose `detail` names it (every such server, when several fail).',
  ].join('\n\n'),
  tags: [HARNESSES_TAG],
  responses: () =>
    import('../openapi/harnesses-responses.js').then(({ HarnessToolListSchema, HARNESS_NOT_FOUND }) => ({
      200: { description: 'The tools.', schema: HarnessToolListSchema },
      404: HARNESS_NOT_FOUND,
      502: 'An MCP server of the harness is unreachable or failing (`upstream_unavailable`, naming it).',
    })),
});
