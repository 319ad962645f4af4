import { defineEndpoint } from '#platform/http/contract.js';

export const ConsolePage = defineEndpoint({
  id: 'ConsolePage',
  method: 'GET',
  path: '/',
  handler: 'functions/pages/console-page.ts',
  auth: 'none',
  table: 'none',
  staticFiles: true,
  undocumented: 'The web console, an HTML page for people (it signs in with the browser session and calls the documented API).',
});
