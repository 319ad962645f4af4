import { defineEndpoint } from '#platform/http/contract.js';

export const WebAsset = defineEndpoint({
  id: 'WebAsset',
  method: 'GET',
  path: '/assets/{file}',
  handler: 'functions/pages/web-asset.ts',
  auth: 'none',
  table: 'none',
  staticFiles: true,
  undocumented: 'The scripts and styles of the console and the reference page, content-hashed and cached for a year.',
});
