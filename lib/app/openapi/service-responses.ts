import * as z from 'zod';
import { withExample } from '#platform/http/common-schemas.js';
import { retryAfter } from '#platform/openapi/headers.js';

export const HealthStatus = withExample(z.object({ status: z.literal('ok') }), { status: 'ok' });

export const OpenApiDocument = withExample(z.looseObject({}).meta({ description: 'An OpenAPI 3.1 document: this one.' }), {
  openapi: '3.1.0',
  info: { title: 'Workflow and Agent Execution Service', version: '1.0.0' },
  servers: [{ url: 'https://api.example.com' }],
  paths: {},
});

export const UNAVAILABLE_RETRY = retryAfter('always `1`');
