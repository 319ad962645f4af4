import type { EndpointContract } from '#platform/http/contract.js';
import { HooksCreate } from './hooks-create.js';
import { HooksDelete } from './hooks-delete.js';
import { HooksEvents } from './hooks-events.js';
import { HooksGet } from './hooks-get.js';
import { HooksList } from './hooks-list.js';
import { HooksRotateSecret } from './hooks-rotate-secret.js';

export const HOOKS_ENDPOINTS: readonly EndpointContract[] = [HooksCreate, HooksList, HooksGet, HooksDelete, HooksRotateSecret, HooksEvents];
