import { serviceEnv } from '../lib/config/env.js';
import { httpHandler } from '../lib/http/handler.js';
import { jsonText } from '../lib/http/responses.js';
import { OPENAPI_JSON, SERVER_URL_PLACEHOLDER } from '../lib/openapi/generated.js';

// Generated at build time (`npm run openapi`): building the document here
// would load zod and zod-to-openapi on every cold start. Only the server url
// is known at run time; it is spliced in on the first request, as the base URL
// is read then and does not change until the next deploy.
let body: string | undefined;

function withServerUrl(url: string): string {
  const placeholder = JSON.stringify(SERVER_URL_PLACEHOLDER);
  const at = OPENAPI_JSON.indexOf(placeholder);
  return OPENAPI_JSON.slice(0, at) + JSON.stringify(url) + OPENAPI_JSON.slice(at + placeholder.length);
}

export const handler = httpHandler({ auth: 'none' }, async () => {
  body ??= withServerUrl(serviceEnv.baseUrl);
  return jsonText(200, body);
});
