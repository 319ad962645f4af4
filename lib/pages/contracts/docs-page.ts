import { defineEndpoint } from '#platform/http/contract.js';

export const DocsPage = defineEndpoint({
  id: 'DocsPage',
  method: 'GET',
  path: '/docs',
  handler: 'functions/pages/docs-page.ts',
  auth: 'none',
  table: 'none',
  staticFiles: true,
  undocumented: 'The API reference, an HTML page rendering GET /openapi.json for people.',
});
