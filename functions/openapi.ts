import { serviceEnv } from '../lib/config/env.js';
import { httpHandler } from '../lib/http/handler.js';
import { json } from '../lib/http/responses.js';
import { buildOpenApiDocument } from '../lib/openapi/document.js';

// Built once per execution environment; the document only changes with a deploy.
const document = buildOpenApiDocument(serviceEnv.baseUrl);

export const handler = httpHandler({ auth: 'none' }, async () => json(200, document));
