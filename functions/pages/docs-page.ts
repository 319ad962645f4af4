import { DocsPage } from '#pages/contracts/docs-page.js';
import { type StaticSite, serveStatic, staticSite } from '#pages/static-site.js';
import { httpHandler } from '#platform/http/handler.js';

export const makeHandler = (site: StaticSite = staticSite()) => httpHandler(DocsPage, { auth: 'none' }, async ({ event }) => serveStatic(site, '/docs', event));

export const handler = makeHandler();
