import type { EndpointContract } from '#platform/http/contract.js';
import { Health } from './health.js';
import { NotFound } from './not-found.js';
import { OpenApi } from './open-api.js';

/** The service's own endpoints: health, this document, and the answer for every path no route serves. */
export const APP_ENDPOINTS: readonly EndpointContract[] = [Health, OpenApi, NotFound];
