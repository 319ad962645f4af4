import { defineEndpoint } from '#platform/http/contract.js';
import { PAGES_TAG } from './tags.js';

export const ConsolePage = defineEndpoint({
  id: 'ConsolePage',
  method: 'GET',
  path: '/',
  handler: 'functions/pages/console-page.ts',
  auth: 'none',
  table: 'none',
  staticFiles: true,
  operationId: 'consolePage',
  summary: 'The web console',
  description:
    'The console: sign in with email and password (the browser session), then tokens, runs, workflow requests, usage and webhooks. It mints itself a short-lived API token through the session, keeps it in memory only, and calls this API with it.',
  tags: [PAGES_TAG],
  responses: () =>
    import('../openapi/pages-responses.js').then(({ HtmlPage, NOT_MODIFIED }) => ({
      200: HtmlPage('The console'),
      304: NOT_MODIFIED,
    })),
});
