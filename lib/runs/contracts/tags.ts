import { defineTag } from '#platform/http/contract.js';

/** This feature's OpenAPI tag: its description opens the feature's operations in the document. */
export const RUNS_TAG = defineTag(
  'Runs',
  'Runs of a harness on a machine: one run at a time per machine, in creation order; each run an agent loop with tools, people and MCP servers, recorded as events.',
);
