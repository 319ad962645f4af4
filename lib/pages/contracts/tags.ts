import { defineTag } from '#platform/http/contract.js';

/** This feature's OpenAPI tag: its description opens the feature's operations in the document. */
export const PAGES_TAG = defineTag(
  'Pages',
  'What a person opens in a browser on the same base URL: the web console and this reference, with their scripts and stylesheets. No credentials; the console signs in with the browser session and then calls the API like any client.',
);
