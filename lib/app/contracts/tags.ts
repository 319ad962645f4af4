import { defineTag } from '#platform/http/contract.js';

/** This feature's OpenAPI tag: its description opens the feature's operations in the document. */
export const SERVICE_TAG = defineTag('Service', 'Health and this document; no credentials.');
