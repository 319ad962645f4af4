import type { EndpointContract } from '#platform/http/contract.js';
import { InteractionsGet } from './interactions-get.js';
import { InteractionsList } from './interactions-list.js';
import { InteractionsRespond } from './interactions-respond.js';

export const INTERACTIONS_ENDPOINTS: readonly EndpointContract[] = [InteractionsList, InteractionsGet, InteractionsRespond];
