import { defineTag } from '#platform/http/contract.js';

/** This feature's OpenAPI tag: its description opens the feature's operations in the document. */
export const MACHINES_TAG = defineTag(
  'Machines',
  'Where runs run: one run at a time per machine, the rest wait in order. The plan limits how many an account has.',
);
