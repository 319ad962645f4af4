import { defineEndpoint } from '#platform/http/contract.js';
import { PAGES_TAG } from './tags.js';

export const WebAsset = defineEndpoint({
  id: 'WebAsset',
  method: 'GET',
  path: '/assets/{file}',
  handler: 'functions/pages/web-asset.ts',
  auth: 'none',
  params: { file: { description: 'A file the console or this reference loads, named with its content hash (`console-ABCD1234.js`).' } },
  table: 'none',
  staticFiles: true,
  operationId: 'pageAsset',
  summary: 'A script or stylesheet of the pages',
  description: 'The scripts and stylesheets `GET /` and `GET /docs` name. Their names change with their content, so an answer never goes stale.',
  tags: [PAGES_TAG],
  responses: () =>
    import('../openapi/pages-responses.js').then(({ Asset, NOT_MODIFIED }) => ({
      200: Asset,
      304: NOT_MODIFIED,
      404: 'No such file (`not_found`): an old page asking for a file a later deploy replaced; reload the page.',
    })),
});
