import { defineTag } from '#platform/http/contract.js';

/** This feature's OpenAPI tag: its description opens the feature's operations in the document. */
export const WEBHOOKS_TAG = defineTag(
  'Webhook endpoints',
  'Outbound webhooks: URLs of yours the service POSTs the account’s events to (`workflow_request.*`, `run.*`, `interaction.created`, `evaluation.completed`), signed per Standard Webhooks, retried for about a day, each attempt in the endpoint’s delivery log. The deliveries’ bodies are this document’s `webhooks`.',
);
