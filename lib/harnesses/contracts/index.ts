import type { EndpointContract } from '#platform/http/contract.js';
import { HarnessesCreate } from './harnesses-create.js';
import { HarnessesGet } from './harnesses-get.js';
import { HarnessesList } from './harnesses-list.js';
import { HarnessesTools } from './harnesses-tools.js';

export const HARNESSES_ENDPOINTS: readonly EndpointContract[] = [HarnessesCreate, HarnessesList, HarnessesGet, HarnessesTools];
