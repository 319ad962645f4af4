import type { EndpointContract } from '#platform/http/contract.js';
import { ApiTokensCreate } from './api-tokens-create.js';
import { ApiTokensList } from './api-tokens-list.js';
import { ApiTokensRevoke } from './api-tokens-revoke.js';
import { AuthLogin } from './auth-login.js';
import { AuthLogout } from './auth-logout.js';

export const ACCOUNTS_ENDPOINTS: readonly EndpointContract[] = [AuthLogin, AuthLogout, ApiTokensCreate, ApiTokensList, ApiTokensRevoke];
