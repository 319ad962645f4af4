import { randomBytes } from 'node:crypto';
import { TOKEN_DEFAULT_MINUTES, TOKEN_INFO, TOKEN_MAX_MINUTES } from '#platform/config/limits.js';
import { MIN_BALANCE_TO_MINT_MICRO_USD, PLANS } from '#platform/config/plans.js';
import { sha256Hex } from '#platform/crypto.js';
import { ForbiddenError, NotFoundError } from '#platform/errors.js';
import { parse as parseUuid, stringify as stringifyUuid } from '#platform/uuid.js';
import type { Account, StoredToken } from './model.js';
import type { TokensRepo } from './tokens-repository.js';

/**
 * Token string: `wfs_` + 22 characters naming the account (its UUID in
 * base64url) + 43 characters of secret (32 random bytes, 256 bits). The
 * prefix makes leaked tokens easy to scan for; the account part lets the
 * bearer check fetch the credential and its account in one round trip.
 */
export const TOKEN_PREFIX = 'wfs_';
const ACCOUNT_PART = 22;
const SECRET_PART = 43;
const TOKEN_PATTERN = new RegExp(`^${TOKEN_PREFIX}[A-Za-z0-9_-]{${ACCOUNT_PART}}[A-Za-z0-9_-]{${SECRET_PART}}$`);

export function formatToken(accountId: string, secret: Buffer = randomBytes(32)): string {
  return `${TOKEN_PREFIX}${Buffer.from(parseUuid(accountId)).toString('base64url')}${secret.toString('base64url')}`;
}

/** The account a token string names, or undefined when it is not one of ours. */
export function accountIdOfToken(token: string): string | undefined {
  if (!TOKEN_PATTERN.test(token)) return undefined;
  const bytes = Buffer.from(token.slice(TOKEN_PREFIX.length, TOKEN_PREFIX.length + ACCOUNT_PART), 'base64url');
  return bytes.length === 16 ? stringifyUuid(bytes) : undefined;
}

export const tokenHash = (token: string): string => sha256Hex(token);

/** Specification: default 60; zero or less becomes 60; above 525600 is clamped. */
export function effectiveDurationMinutes(requested: number | undefined): number {
  if (requested === undefined || requested <= 0) return TOKEN_DEFAULT_MINUTES;
  return Math.min(requested, TOKEN_MAX_MINUTES);
}

export function assertMayMint(account: Account): void {
  if (account.suspended) throw new ForbiddenError('The account is suspended.');
  if (!PLANS[account.plan].canMintTokens) {
    throw new ForbiddenError('API tokens require a paid plan; the account is on the free plan.');
  }
  if (account.balance_micro_usd < MIN_BALANCE_TO_MINT_MICRO_USD) {
    throw new ForbiddenError('API tokens require an account balance of at least 2.00 USD.');
  }
}

export interface MintedToken {
  id: string;
  token: string;
  name: string;
  expires_at: string;
  expires_in: number;
  scope: 'api';
  endpoint: string;
  rate_limit: string;
  max_concurrent_requests: number;
  usage_note: string;
  created_at: string;
}

export async function mintToken(
  deps: { tokens: TokensRepo; newTokenId: () => string },
  account: Account,
  request: { name?: string; duration_minutes?: number },
  baseUrl: string,
  now = new Date(),
): Promise<MintedToken> {
  assertMayMint(account);
  const minutes = effectiveDurationMinutes(request.duration_minutes);
  const expiresAt = new Date(now.getTime() + minutes * 60_000);
  const token = formatToken(account.id);
  const stored: StoredToken = {
    id: deps.newTokenId(),
    account_id: account.id,
    name: request.name ?? `API Token - ${now.toISOString()}`,
    token_hash: tokenHash(token),
    created_at: now.toISOString(),
    expires_at: expiresAt.toISOString(),
  };
  await deps.tokens.create(stored);
  return {
    id: stored.id,
    token,
    name: stored.name,
    expires_at: stored.expires_at,
    expires_in: minutes * 60,
    scope: 'api',
    // Legacy and informational: the path is not served and answers 404.
    endpoint: `${baseUrl}/v1/chat/completions`,
    rate_limit: TOKEN_INFO.rateLimit,
    max_concurrent_requests: TOKEN_INFO.maxConcurrentRequests,
    usage_note: 'Send this token as "Authorization: Bearer <token>" on /v1 and /v2 calls. It is shown only once; the service keeps only its hash.',
    created_at: stored.created_at,
  };
}

export const listedToken = (token: StoredToken) => ({
  id: token.id,
  name: token.name,
  expires_at: token.expires_at,
  created_at: token.created_at,
  scope: 'api' as const,
  status: 'active' as const,
});

export async function revokeToken(tokens: TokensRepo, accountId: string, tokenId: string): Promise<void> {
  const token = await tokens.getForAccount(accountId, tokenId);
  if (!token) throw new NotFoundError('No token with that id.');
  await tokens.delete(token);
}
