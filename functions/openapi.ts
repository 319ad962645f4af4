import { OpenApi } from '#app/contracts/open-api.js';
import { servedOpenApi } from '#app/openapi/served.js';
import { serviceEnv } from '#platform/config/env.js';
import { httpHandler } from '#platform/http/handler.js';
import { jsonText } from '#platform/http/responses.js';

// Generated at build time (`npm run openapi`): building the document here
// would load zod and zod-to-openapi on every cold start. The base URL is
// spliced in on the first request; it does not change until the next deploy.
let body: string | undefined;

export const handler = httpHandler(OpenApi, { auth: 'none' }, async () => {
  body ??= servedOpenApi(serviceEnv.baseUrl);
  return jsonText(200, body);
});
