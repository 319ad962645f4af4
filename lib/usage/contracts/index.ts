import type { EndpointContract } from '#platform/http/contract.js';
import { UsageGet } from './usage-get.js';

export const USAGE_ENDPOINTS: readonly EndpointContract[] = [UsageGet];
