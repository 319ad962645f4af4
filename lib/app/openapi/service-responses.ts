import * as z from 'zod';
import { retryAfter } from '#platform/openapi/headers.js';

export const HealthStatus = z.object({ status: z.literal('ok') });

export const OpenApiDocument = z.object({}).passthrough();

export const UNAVAILABLE_RETRY = retryAfter('always `1`');
