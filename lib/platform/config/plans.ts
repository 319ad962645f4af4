/** Plan limits (decisions.md, Plans). Amounts are microdollars. */
export const PLAN_NAMES = ['free', 'pro', 'team'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export interface Plan {
  canMintTokens: boolean;
  machines: number;
  fiveHourAllowanceMicroUsd: number;
  weeklyAllowanceMicroUsd: number;
}

const USD = 1_000_000;

export const PLANS: Readonly<Record<PlanName, Plan>> = {
  free: { canMintTokens: false, machines: 1, fiveHourAllowanceMicroUsd: 1 * USD, weeklyAllowanceMicroUsd: 5 * USD },
  pro: { canMintTokens: true, machines: 3, fiveHourAllowanceMicroUsd: 20 * USD, weeklyAllowanceMicroUsd: 100 * USD },
  team: { canMintTokens: true, machines: 20, fiveHourAllowanceMicroUsd: 200 * USD, weeklyAllowanceMicroUsd: 1000 * USD },
};

/** Token minting also needs this balance (specification, Authentication 4). */
export const MIN_BALANCE_TO_MINT_MICRO_USD = 2 * USD;

export const MICRO_USD_PER_USD = USD;
