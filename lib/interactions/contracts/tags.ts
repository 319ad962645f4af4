import { defineTag } from '#platform/http/contract.js';

/** This feature's OpenAPI tag: its description opens the feature's operations in the document. */
export const INTERACTIONS_TAG = defineTag('Interactions', 'Questions and approvals that wait on a person.');
