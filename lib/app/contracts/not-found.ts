import { defineEndpoint } from '#platform/http/contract.js';

export const NotFound = defineEndpoint({
  id: 'NotFound',
  method: 'ANY',
  path: '$default',
  handler: 'functions/not-found.ts',
  auth: 'none',
  table: 'none',
  undocumented: 'API Gateway’s `$default` route: every path no other route serves, answered 404 or 405.',
});
