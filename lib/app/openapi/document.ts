import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { registerTokenPaths } from '#accounts/openapi/api-tokens.js';
import { registerAuthPaths } from '#accounts/openapi/auth.js';
import { registerWorkflowRequestPaths } from '#execution/openapi/workflow-requests.js';
import { registerWorkflowRequestStreamPaths } from '#execution/openapi/workflow-requests-stream.js';
import { registerInteractionPaths } from '#interactions/openapi/interactions.js';
import { registerMemoryPaths } from '#memory/openapi/memory.js';
import { registerCommon } from '#platform/openapi/common.js';
import { registerWorkflowPaths } from '#workflows/openapi/workflows.js';
import { registerServicePaths } from './service.js';

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
];

/**
 * The OpenAPI 3.1 document, generated from the zod schemas that validate
 * requests; nothing here is written by hand but descriptions. Built by
 * `npm run openapi` into lib/app/openapi/generated.ts, never in a Lambda.
 */
export function buildOpenApiDocument(serverUrl = '/') {
  const registry = new OpenAPIRegistry();
  const common = registerCommon(registry);
  registerServicePaths(registry, common);
  registerAuthPaths(registry, common);
  registerTokenPaths(registry, common);
  registerMemoryPaths(registry, common);
  registerInteractionPaths(registry, common);
  registerWorkflowRequestPaths(registry, common);
  registerWorkflowRequestStreamPaths(registry, common);
  registerWorkflowPaths(registry, common);
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
