import { defineEndpoint } from '#platform/http/contract.js';
import { PAGES_TAG } from './tags.js';

export const DocsPage = defineEndpoint({
  id: 'DocsPage',
  method: 'GET',
  path: '/docs',
  handler: 'functions/pages/docs-page.ts',
  auth: 'none',
  table: 'none',
  staticFiles: true,
  operationId: 'referencePage',
  summary: 'This API reference',
  description: 'This reference, rendered in the browser from `GET /openapi.json`. Everything it needs is served by this origin.',
  tags: [PAGES_TAG],
  responses: () =>
    import('../openapi/pages-responses.js').then(({ HtmlPage, NOT_MODIFIED }) => ({
      200: HtmlPage('This reference'),
      304: NOT_MODIFIED,
    })),
});
