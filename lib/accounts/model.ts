import type { LimitOverrides, PlanName } from '#platform/config/plans.js';

/**
 * Accounts as the service keeps them: the account, its browser sessions
 * and its API tokens. No I/O.
 */

/** An account; the limit overrides an operator set (`account:set-limits`) are on it, absent where the plan's apply. */
export interface Account extends LimitOverrides {
  id: string;
  email: string;
  plan: PlanName;
  balance_micro_usd: number;
  suspended: boolean;
  extra_usage: boolean;
  created_at: string;
  updated_at: string;
}

/** The override attributes of the account item (microdollars for the allowances). */
export const LIMIT_OVERRIDES = ['five_hour_allowance', 'week_allowance', 'rps', 'concurrency'] as const satisfies ReadonlyArray<keyof LimitOverrides>;

export interface AccountWithSecret extends Account {
  password_hash: string;
}

export interface Session {
  account_id: string;
  created_at: string;
  expires_at: string;
}

export interface StoredToken {
  id: string;
  account_id: string;
  name: string;
  token_hash: string;
  created_at: string;
  expires_at: string;
}
