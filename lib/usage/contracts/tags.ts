import { defineTag } from '#platform/http/contract.js';

/** This feature's OpenAPI tag: its description opens the feature's operations in the document. */
export const USAGE_TAG = defineTag(
  'Usage',
  'The plan’s usage windows (5 hours and a week) and what funds the next call: the plan, extra usage paid from the wallet, or nothing until a window resets.',
);
