import { WebAsset } from '#pages/contracts/web-asset.js';
import { ASSETS_PREFIX } from '#pages/model.js';
import { type StaticSite, serveStatic, staticSite } from '#pages/static-site.js';
import { httpHandler } from '#platform/http/handler.js';

export const makeHandler = (site: StaticSite = staticSite()) =>
  httpHandler(WebAsset, { auth: 'none' }, async ({ event, params }) => serveStatic(site, `${ASSETS_PREFIX}${params.file}`, event));

export const handler = makeHandler();
