import { defineTag } from '#platform/http/contract.js';

/** This feature's OpenAPI tag: its description opens the feature's operations in the document. */
export const CHAT_MEMORY_TAG = defineTag('Chat memory', 'What agent nodes wrote to a context memory.');
