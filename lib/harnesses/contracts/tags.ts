import { defineTag } from '#platform/http/contract.js';

/** This feature's OpenAPI tag: its description opens the feature's operations in the document. */
export const HARNESSES_TAG = defineTag(
  'Harnesses',
  'Agent definitions: immutable sets of files with `harness.json` at the root (model, instructions, tools, MCP servers).',
);
