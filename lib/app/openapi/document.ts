import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { EvaluationSummarySchema } from '#evaluations/openapi/evaluations-responses.js';
import { WorkflowRequestSchema } from '#execution/openapi/workflow-requests-responses.js';
import { InteractionSchema } from '#interactions/openapi/interactions-responses.js';
import { priceTableMarkdown } from '#platform/config/price-table.js';
import type { EndpointContract, OpenApiTag } from '#platform/http/contract.js';
import { exampleOf } from '#platform/openapi/examples.js';
import { JsonSchemas } from '#platform/openapi/json-schemas.js';
import { loadOperations, type Operation, pageOf, type Resolve, registerSecuritySchemes, routeOf } from '#platform/openapi/operations.js';
import { paginationGuide } from '#platform/openapi/pagination.js';
import { RunSchema } from '#runs/openapi/runs-responses.js';
import { WEBHOOKS_TAG } from '#webhooks/contracts/tags.js';
import { type WebhookDoc, webhookDocs } from '#webhooks/openapi/webhook-payloads.js';

/**
 * Every tag the operations use, in the order the registry lists the
 * features (the service's own first), each stated once by its feature
 * (`contracts/tags.ts`); two different tags of one name are refused.
 */
function tagsOf(endpoints: readonly EndpointContract[]): OpenApiTag[] {
  const tags = new Map<string, OpenApiTag>();
  for (const contract of endpoints) {
    for (const tag of contract.tags ?? []) {
      const known = tags.get(tag.name);
      if (known && known !== tag) throw new Error(`${contract.id}: tag ${tag.name} is stated twice; use the feature's own (contracts/tags.ts)`);
      tags.set(tag.name, tag);
    }
  }
  return [...tags.values()];
}

/** Operations by their first tag's place among the tags, so a reader meets them by subject; in contract order within one. */
function inTagOrder(endpoints: readonly EndpointContract[], tags: readonly OpenApiTag[]): EndpointContract[] {
  const rank = (contract: EndpointContract): number => (contract.tags?.[0] ? tags.indexOf(contract.tags[0]) : -1);
  return [...endpoints].sort((a, b) => rank(a) - rank(b));
}

/**
 * The outbound webhooks' deliveries (the webhooks feature), one entry of the
 * document's `webhooks` per event type, `data` the resource as its own
 * feature's API shows it: composed here, as features do not import each
 * other's response schemas.
 */
const deliveries = (): WebhookDoc[] =>
  webhookDocs({
    'workflow_request.completed': WorkflowRequestSchema,
    'workflow_request.failed': WorkflowRequestSchema,
    'workflow_request.stopped': WorkflowRequestSchema,
    'run.completed': RunSchema,
    'run.failed': RunSchema,
    'run.cancelled': RunSchema,
    'interaction.created': InteractionSchema,
    'evaluation.completed': EvaluationSummarySchema,
  });

/** A delivery as the document's `webhooks` states it: a request the service sends, so its body is a response of ours (zod's output). */
const webhookOf = (doc: WebhookDoc, resolve: Resolve): RouteConfig => ({
  method: 'post',
  path: doc.name,
  operationId: doc.operationId,
  summary: doc.summary,
  description: doc.description,
  tags: [WEBHOOKS_TAG.name],
  // Authenticated by its signature (Standard Webhooks), not by a security scheme.
  security: [],
  request: {
    headers: doc.headers,
    body: { required: true, content: { 'application/json': { schema: resolve(doc.body, 'output') as never, example: exampleOf(doc.body) } } },
  },
  responses: Object.fromEntries(Object.entries(doc.responses).map(([status, description]) => [status, { description }])),
});

/**
 * Every schema in the mode of its side (JsonSchemas): the operations and the
 * deliveries are built once to collect them, then again with their names.
 */
function register(registry: OpenAPIRegistry, operations: readonly Operation[], webhooks: readonly WebhookDoc[]): void {
  const schemas = new JsonSchemas();
  const build = (resolve: Resolve) => ({
    paths: operations.map((operation) => routeOf(operation, resolve)),
    hooks: webhooks.map((doc) => webhookOf(doc, resolve)),
  });
  build(schemas.collect);
  registerSecuritySchemes(registry);
  for (const [name, schema] of Object.entries(schemas.components())) registry.registerComponent('schemas', name, schema as never);
  const { paths, hooks } = build(schemas.resolve);
  for (const path of paths) registry.registerPath(path);
  for (const hook of hooks) registry.registerWebhook(hook);
}

const SCHEMA_MODES =
  '## Requests and responses\n\n' +
  'A request schema lists as `required` what a client must send; a field with a `default` may be left out, and the service then takes that value. ' +
  'A response schema lists as `required` every field the service always sends. Where one shape is both, the request’s component is named `<name>Input`. ' +
  'Requiredness is always stated, so a generator need not infer it from `default` (with openapi-typescript, `defaultNonNullable: false`).';

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
  const tags = tagsOf(endpoints);
  const operations = await loadOperations(inTagOrder(endpoints, tags));
  register(registry, operations, deliveries());
  const lists = operations.flatMap((operation) => {
    const shape = pageOf(operation);
    return shape ? [{ operationId: operation.contract.operationId, shape }] : [];
  });
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Workflow and Agent Execution Service',
      version: '1.0.0',
      description:
        'Runs workflows and agent runs for an account and streams their execution. Errors are RFC 9457 problem documents (`application/problem+json`) except on the token calls, which answer `{message}`.\n\n' +
        `${SCHEMA_MODES}\n\n${paginationGuide(lists)}\n\n` +
        `## Prices\n\nEvery cost is an integer number of microdollars (\`cost_micro_usd\`; 1 000 000 = 1 USD).\n\n${priceTableMarkdown()}`,
    },
    servers: [{ url: serverUrl }],
    tags,
  });
}
