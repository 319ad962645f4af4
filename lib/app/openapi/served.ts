import { OPENAPI_JSON, SERVER_URL_PLACEHOLDER } from './generated.js';

/**
 * The document GET /openapi.json answers: the text generated at build time
 * (`npm run openapi`) with the service's base URL in place of the
 * placeholder, which is only known at run time.
 */
export function servedOpenApi(baseUrl: string): string {
  const placeholder = JSON.stringify(SERVER_URL_PLACEHOLDER);
  const at = OPENAPI_JSON.indexOf(placeholder);
  if (at < 0) throw new Error(`lib/app/openapi/generated.ts has no ${placeholder}: run npm run openapi`);
  return OPENAPI_JSON.slice(0, at) + JSON.stringify(baseUrl) + OPENAPI_JSON.slice(at + placeholder.length);
}
