import * as z from 'zod';
import { withExample } from '#platform/http/common-schemas.js';

const WindowSchema = z
  .object({
    kind: z.enum(['5h', 'week']),
    status: z.enum(['allowed', 'limited', 'unknown']).meta({ description: '`unknown`: the windows could not be read; such an entry carries no numbers.' }),
    used_percent: z
      .number()
      .min(0)
      .max(100)
      .optional()
      .meta({ description: 'Usage cost inside the window over the allowance in force, in percent (at most 100).' }),
    window_seconds: z.number().int().optional().meta({ description: '18000 for `5h`, 604800 for `week`.' }),
    resets_at: z.string().datetime().optional().meta({ description: 'Present on a `limited` window: when it closes.' }),
    resets_in_seconds: z.number().int().min(1).optional().meta({ description: 'Present on a `limited` window: seconds until it closes.' }),
  })
  .meta({ id: 'UsageWindow' });

const QuotaFields = {
  windows: z.array(WindowSchema),
  extra: z.object({
    enabled: z.boolean().meta({ description: 'Extra usage is on: the wallet pays past a full window.' }),
    spent_micro_usd_this_cycle: z
      .number()
      .int()
      .min(0)
      .meta({ description: 'Extra-funded usage since the start of the current UTC calendar month, in microdollars.' }),
    wallet_micro_usd: z.number().int().meta({ description: 'The balance, in microdollars.' }),
  }),
  mode: z
    .enum(['plan', 'extra', 'blocked'])
    .meta({ description: 'What funds the next call: the plan while both windows have room; past a full window the wallet (`extra`) or nothing (`blocked`).' }),
};

const EXTRA = { enabled: false, spent_micro_usd_this_cycle: 0, wallet_micro_usd: 5_000_000 };

/** GET /v2/usage: the quota document; `error` and `retry_after_seconds` only when `blocked`. */
export const QuotaDocumentSchema = withExample(
  z
    .object({
      ...QuotaFields,
      error: z.literal('usage_window_exceeded').optional(),
      retry_after_seconds: z.number().int().min(1).optional().meta({ description: 'Seconds until the full window resets (`blocked` only).' }),
    })
    .meta({ id: 'UsageQuota' }),
  {
    windows: [
      { kind: '5h', status: 'allowed', used_percent: 12.5, window_seconds: 18_000 },
      { kind: 'week', status: 'allowed', used_percent: 3.1, window_seconds: 604_800 },
    ],
    extra: EXTRA,
    mode: 'plan',
  },
);

/** The members the allowance 429 adds to its problem document: the whole quota document, blocked. */
export const QuotaExceededSchema = withExample(
  z
    .object({
      ...QuotaFields,
      error: z.literal('usage_window_exceeded'),
      retry_after_seconds: z.number().int().min(1).meta({ description: 'The same wait as the `Retry-After` header: seconds until the full window resets.' }),
    })
    .meta({ id: 'UsageWindowExceeded' }),
  {
    windows: [
      { kind: '5h', status: 'limited', used_percent: 100, window_seconds: 18_000, resets_at: '2026-01-31T12:00:00.000Z', resets_in_seconds: 5400 },
      { kind: 'week', status: 'allowed', used_percent: 41.2, window_seconds: 604_800 },
    ],
    extra: EXTRA,
    mode: 'blocked',
    error: 'usage_window_exceeded',
    retry_after_seconds: 5400,
  },
);

/** The allowance 429's description, which names its code first (so the examples show that refusal). */
export const USAGE_WINDOW_FULL =
  'A plan usage window (5 hours or a week) is full and extra usage is off (`usage_window_exceeded`): the body is the usage-window quota document, its `error` and `retry_after_seconds` members of the problem document, and `Retry-After` equals `retry_after_seconds`.';

/** The allowance 429 and the 403 of an empty wallet, as the creating endpoints document them. */
export const USAGE_REFUSALS = {
  429: {
    description: `${USAGE_WINDOW_FULL} Or past the account’s request rate, or its workflow requests and runs in progress at its limit (\`rate_limited\`, nothing started, no such members); \`Retry-After\` says when to retry.`,
    schema: QuotaExceededSchema,
  },
} as const;
