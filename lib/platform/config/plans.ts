/** Plan limits (decisions.md, Plans; Money: usage, windows, wallet, transactions). Amounts are microdollars. */
export const PLAN_NAMES = ['free', 'pro', 'team'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export interface Plan {
  canMintTokens: boolean;
  machines: number;
  fiveHourAllowanceMicroUsd: number;
  weeklyAllowanceMicroUsd: number;
  /** Authenticated requests per second, sustained; the burst is RATE_BURST_FACTOR times this. */
  requestsPerSecond: number;
  /** Workflow requests plus runs in progress at once. */
  concurrency: number;
}

const USD = 1_000_000;

export const PLANS: Readonly<Record<PlanName, Plan>> = {
  free: {
    canMintTokens: false,
    machines: 1,
    fiveHourAllowanceMicroUsd: 1 * USD,
    weeklyAllowanceMicroUsd: 5 * USD,
    requestsPerSecond: 5,
    concurrency: 2,
  },
  pro: {
    canMintTokens: true,
    machines: 3,
    fiveHourAllowanceMicroUsd: 20 * USD,
    weeklyAllowanceMicroUsd: 100 * USD,
    requestsPerSecond: 20,
    concurrency: 10,
  },
  team: {
    canMintTokens: true,
    machines: 20,
    fiveHourAllowanceMicroUsd: 200 * USD,
    weeklyAllowanceMicroUsd: 1000 * USD,
    requestsPerSecond: 100,
    concurrency: 50,
  },
};

/** Token minting also needs this balance (specification, Authentication 4). */
export const MIN_BALANCE_TO_MINT_MICRO_USD = 2 * USD;

export const MICRO_USD_PER_USD = USD;

/** The burst is twice the rate (decisions.md): at most `burst` requests in any window of RATE_WINDOW_MS. */
export const RATE_BURST_FACTOR = 2;
/** The window the burst is counted in: `burst / rps` seconds, the same for every rate since the burst is a multiple of it. */
export const RATE_WINDOW_MS = RATE_BURST_FACTOR * 1000;

/**
 * What an operator set for one account (`account:set-limits`), stored on its
 * account item; an absent value is the plan's. Allowances in microdollars.
 */
export interface LimitOverrides {
  five_hour_allowance?: number;
  week_allowance?: number;
  rps?: number;
  concurrency?: number;
}

/** The limits in force for an account: its overrides where set, its plan's elsewhere. */
export interface LimitsInForce {
  fiveHourAllowanceMicroUsd: number;
  weeklyAllowanceMicroUsd: number;
  requestsPerSecond: number;
  burst: number;
  concurrency: number;
}

/**
 * The one place an account's limits are decided. Pure and here, beside the
 * plans, so every feature (accounts, execution, runs, billing) reads the
 * same values from the account item it already has, without importing accounts.
 */
export function limitsInForce(account: { plan: PlanName } & LimitOverrides): LimitsInForce {
  const plan = PLANS[account.plan];
  const requestsPerSecond = account.rps ?? plan.requestsPerSecond;
  return {
    fiveHourAllowanceMicroUsd: account.five_hour_allowance ?? plan.fiveHourAllowanceMicroUsd,
    weeklyAllowanceMicroUsd: account.week_allowance ?? plan.weeklyAllowanceMicroUsd,
    requestsPerSecond,
    burst: RATE_BURST_FACTOR * requestsPerSecond,
    concurrency: account.concurrency ?? plan.concurrency,
  };
}
