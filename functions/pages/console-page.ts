import { ConsolePage } from '#pages/contracts/console-page.js';
import { type StaticSite, serveStatic, staticSite } from '#pages/static-site.js';
import { httpHandler } from '#platform/http/handler.js';

export const makeHandler = (site: StaticSite = staticSite()) => httpHandler(ConsolePage, { auth: 'none' }, async ({ event }) => serveStatic(site, '/', event));

export const handler = makeHandler();
