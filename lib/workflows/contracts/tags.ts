import { defineTag } from '#platform/http/contract.js';

/** This feature's OpenAPI tags: their descriptions open each group of operations in the document. */
export const WORKFLOWS_TAG = defineTag('Workflows', 'Workflows and their immutable, numbered versions.');
export const CHATS_TAG = defineTag('Chats', 'Chats; a chat’s id is also its context memory id.');
