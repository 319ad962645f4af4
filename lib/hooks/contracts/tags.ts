import { defineTag } from '#platform/http/contract.js';

/** This feature's OpenAPI tag: its description opens the feature's operations in the document. */
export const HOOKS_TAG = defineTag(
  'Hooks',
  'Inbound webhooks (the event hub): a URL that starts a workflow request of one version for every event signed with its secret, per Standard Webhooks.',
);
