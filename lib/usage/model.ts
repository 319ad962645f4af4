import { type LimitOverrides, limitsInForce, MICRO_USD_PER_USD, type PlanName } from '#platform/config/plans.js';

/**
 * Usage windows (decisions.md, Money: Windows; What funds a call). Each
 * account has a 5-hour and a weekly window: a window opens at the first
 * usage after the previous one closed and lasts its length; the usage cost
 * recorded inside it, over the allowance in force, is how full it is. Pure
 * functions of the stored item, the account and the time.
 */

export const WINDOW_KINDS = ['5h', 'week'] as const;
export type WindowKind = (typeof WINDOW_KINDS)[number];
export const WINDOW_SECONDS: Readonly<Record<WindowKind, number>> = { '5h': 18_000, week: 604_800 };

/** Below this balance an `extra` account may not start work (decisions.md, At creation; specification, Limits). */
export const MIN_BALANCE_MICRO_USD = 2 * MICRO_USD_PER_USD;

/** The stored windows item, as read (lib/usage/usage-repository.ts); absent fields: never used. */
export interface WindowsItem {
  /** Epoch ms each window opened at, and the usage cost recorded in it (microdollars). */
  five_hour_start?: number;
  five_hour_used?: number;
  week_start?: number;
  week_used?: number;
  /** The UTC month (`YYYY-MM`) `extra_spent` counts, and the extra-funded usage of it. */
  extra_month?: string;
  extra_spent?: number;
}

/** The attributes of each window on the item. */
export const WINDOW_ATTRIBUTES = {
  '5h': { start: 'five_hour_start', used: 'five_hour_used' },
  week: { start: 'week_start', used: 'week_used' },
} as const satisfies Record<WindowKind, { start: keyof WindowsItem; used: keyof WindowsItem }>;

/** What metering needs of an account. */
export interface FundingAccount extends LimitOverrides {
  plan: PlanName;
  extra_usage: boolean;
  balance_micro_usd: number;
}

export type Mode = 'plan' | 'extra' | 'blocked';

export interface WindowView {
  kind: WindowKind;
  status: 'allowed' | 'limited' | 'unknown';
  used_percent?: number;
  window_seconds?: number;
  resets_at?: string;
  resets_in_seconds?: number;
}

/** The usage-window quota document (specification, Resources). */
export interface QuotaDocument {
  windows: WindowView[];
  extra: { enabled: boolean; spent_micro_usd_this_cycle: number; wallet_micro_usd: number };
  mode: Mode;
  error?: 'usage_window_exceeded';
  retry_after_seconds?: number;
}

/** A window's state at `now`: a closed (or never opened) window is empty, and the next usage opens a new one. */
export function windowAt(item: WindowsItem, kind: WindowKind, now: number): { open: boolean; start?: number; used: number } {
  const { start, used } = WINDOW_ATTRIBUTES[kind];
  const opened = item[start];
  if (opened === undefined || opened + WINDOW_SECONDS[kind] * 1000 <= now) return { open: false, used: 0 };
  return { open: true, start: opened, used: Number(item[used] ?? 0) };
}

export const utcMonth = (now: number): string => new Date(now).toISOString().slice(0, 7);

/**
 * The quota document at `now`. `item` undefined means the windows could
 * not be read: they are `unknown`, carry no numbers, and decide nothing
 * (the mode is then `plan`: a failed read does not refuse work, and the
 * next check reads again). A full window (used at or past its allowance) is
 * `limited` with its reset; the mode is `plan` while none is, else `extra`
 * when the account has extra usage on, else `blocked`, which waits for the
 * last full window to reset.
 */
export function quotaDocument(account: FundingAccount, item: WindowsItem | undefined, now: number): QuotaDocument {
  const limits = limitsInForce(account);
  const allowance: Record<WindowKind, number> = { '5h': limits.fiveHourAllowanceMicroUsd, week: limits.weeklyAllowanceMicroUsd };
  const windows: WindowView[] = [];
  let waitSeconds = 0;
  let full = false;
  for (const kind of WINDOW_KINDS) {
    if (!item) {
      windows.push({ kind, status: 'unknown' });
      continue;
    }
    const state = windowAt(item, kind, now);
    const limited = state.used >= allowance[kind];
    const percent = allowance[kind] > 0 ? Math.min(100, (state.used * 100) / allowance[kind]) : 100;
    const view: WindowView = {
      kind,
      status: limited ? 'limited' : 'allowed',
      used_percent: Math.round(percent * 100) / 100,
      window_seconds: WINDOW_SECONDS[kind],
    };
    if (limited) {
      full = true;
      // An allowance of 0 is full before any usage opened the window: it resets as soon as one would close.
      const resetsAt = (state.start ?? now) + WINDOW_SECONDS[kind] * 1000;
      view.resets_at = new Date(resetsAt).toISOString();
      view.resets_in_seconds = Math.max(1, Math.ceil((resetsAt - now) / 1000));
      waitSeconds = Math.max(waitSeconds, view.resets_in_seconds);
    }
    windows.push(view);
  }
  const month = utcMonth(now);
  const extra = {
    enabled: account.extra_usage,
    spent_micro_usd_this_cycle: item?.extra_month === month ? Number(item.extra_spent ?? 0) : 0,
    wallet_micro_usd: account.balance_micro_usd,
  };
  const mode: Mode = !full ? 'plan' : account.extra_usage ? 'extra' : 'blocked';
  return mode === 'blocked' ? { windows, extra, mode, error: 'usage_window_exceeded', retry_after_seconds: waitSeconds } : { windows, extra, mode };
}

/**
 * The windows as they will stand once `pending` is recorded too: usage the
 * work has settled that the item does not hold yet (a workflow request's
 * flat fees, recorded with its end, in whatever window is open then). An
 * open window gets it added; a closed one is opened now with it. An
 * unreadable item stays unreadable.
 */
export function withPending(item: WindowsItem | undefined, pending: number, now: number): WindowsItem | undefined {
  if (!item || pending <= 0) return item;
  const next: WindowsItem = { ...item };
  for (const kind of WINDOW_KINDS) {
    const { start, used } = WINDOW_ATTRIBUTES[kind];
    const state = windowAt(item, kind, now);
    next[start] = state.open ? state.start : now;
    next[used] = state.used + pending;
  }
  return next;
}

/** Why work already going stops (decisions.md, During a run or request): both final, neither an HTTP error. */
export interface UsageFailure {
  code: 'usage_window_exceeded' | 'out_of_funds';
  message: string;
}

/**
 * The check before a node execution or a model turn, at `now`, against the
 * usage recorded so far plus `pending` (settled, not yet in the windows):
 * a window it fills with extra usage off stops the work
 * (`usage_window_exceeded`); with extra usage on, what the work owes the
 * wallet (its extra-funded usage not yet debited, `unpaidExtra`, and the
 * pending usage, which extra usage funds once a window is full) must leave
 * something of the balance, else `out_of_funds`. It only gets worse as
 * `pending` grows, so a bound on it that passes passes the exact value too.
 */
export function unfundedBy(
  account: FundingAccount,
  item: WindowsItem | undefined,
  now: number,
  unpaidExtra: number,
  pending: number,
): UsageFailure | undefined {
  const doc = quotaDocument(account, withPending(item, pending, now), now);
  if (doc.mode === 'blocked') {
    return { code: 'usage_window_exceeded', message: `A usage window of the plan is full; it resets in ${doc.retry_after_seconds} seconds.` };
  }
  if (doc.mode === 'extra' && doc.extra.wallet_micro_usd - unpaidExtra - pending <= 0) {
    return { code: 'out_of_funds', message: 'A usage window of the plan is full and the wallet that pays for extra usage is empty; add funds.' };
  }
  return undefined;
}
