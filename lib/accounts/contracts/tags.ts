import { defineTag } from '#platform/http/contract.js';

/** This feature's OpenAPI tags: their descriptions open each group of operations in the document. */
export const SESSIONS_TAG = defineTag('Sessions', 'Browser sign-in. The session cookie is a credential only for minting API tokens.');
export const API_TOKENS_TAG = defineTag('API tokens', 'Bearer tokens for everything else. These calls answer errors as `{message}`, not as problem documents.');
