import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import type { EndpointContract } from '#platform/http/contract.js';
import { registerOperations } from '#platform/openapi/operations.js';

/** Every tag an operation uses, in the order a reader meets them. */
const TAGS = [
  { name: 'Service', description: 'Health and this document; no credentials.' },
  { name: 'Sessions', description: 'Browser sign-in. The session cookie is a credential only for minting API tokens.' },
  { name: 'API tokens', description: 'Bearer tokens for everything else. These calls answer errors as `{message}`, not as problem documents.' },
  { name: 'Workflows', description: 'Workflows and their immutable, numbered versions.' },
  { name: 'Chats', description: 'Chats; a chat’s id is also its context memory id.' },
  { name: 'Workflow requests', description: 'Running a workflow version, its history, execution tree and live event stream.' },
  { name: 'Chat memory', description: 'What agent nodes wrote to a context memory.' },
  { name: 'Interactions', description: 'Questions and approvals that wait on a person.' },
  { name: 'Harnesses', description: 'Agent definitions: immutable sets of files with `harness.json` at the root (model, instructions, tools, MCP servers).' },
  { name: 'Machines', description: 'Where runs run: one run at a time per machine, the rest wait in order. The plan limits how many an account has.' },
];

/** Operations by their first tag's place in TAGS, so a reader meets them by subject; in contract order within one. */
function inTagOrder(endpoints: readonly EndpointContract[]): EndpointContract[] {
  const rank = (contract: EndpointContract): number => {
    const tag = contract.tags?.[0];
    const at = TAGS.findIndex((t) => t.name === tag);
    if (tag !== undefined && at < 0) throw new Error(`${contract.id}: tag ${tag} is not in TAGS (lib/app/openapi/document.ts)`);
    return at;
  };
  return [...endpoints].sort((a, b) => rank(a) - rank(b));
}

/**
 * The OpenAPI 3.1 document, generated from the endpoint contracts and the
 * zod schemas that validate requests; nothing here is written by hand but
 * descriptions. Built by `npm run openapi` into lib/app/openapi/generated.ts,
 * never in a Lambda. `endpoints` are passed in (not read from
 * lib/app/registry.generated.ts), so the generator can build the document
 * of the tree as it is before that file is written again.
 */
export async function buildOpenApiDocument(endpoints: readonly EndpointContract[], serverUrl = '/') {
  const registry = new OpenAPIRegistry();
  await registerOperations(registry, inTagOrder(endpoints));
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Workflow and Agent Execution Service',
      version: '1.0.0',
      description:
        'Runs workflows and agent runs for an account and streams their execution. Errors are RFC 9457 problem documents (`application/problem+json`) except on the token calls, which answer `{message}`.',
    },
    servers: [{ url: serverUrl }],
    tags: TAGS,
  });
}
