import { randomBytes } from 'node:crypto';

/**
 * Hooks (inbound webhooks, the event hub): a URL that starts a workflow
 * request of one version at its entry nodes for every event signed with the
 * hook's secret (Standard Webhooks). No secret is stored: a hook keeps the
 * version of its secret, and the secret is derived from the service key
 * when it is shown or checked (./secrets.ts).
 */
export interface Hook {
  id: string;
  account_id: string;
  name: string;
  workflow_version_id: string;
  entry_node_ids: string[];
  /** The version of the secret events are signed with (1 at creation, raised by each rotation). */
  secret_version: number;
  /** The version before the last rotation, still verifying until `previous_valid_until`; null before any rotation. */
  previous_secret_version: number | null;
  previous_valid_until: string | null;
  secret_rotated_at: string | null;
  created_at: string;
}

/** `hook_`, 9 base-36 digits of creation time, 16 base64url characters (as lib/platform/ids.ts builds public ids). */
export const HOOK_ID = /^hook_[0-9a-z]{9}[A-Za-z0-9_-]{16}$/;

export const newHookId = (): string => `hook_${Date.now().toString(36).padStart(9, '0')}${randomBytes(12).toString('base64url')}`;

/** A list position: the gsi1 sort key of the last hook of a page, `<created_at>#<id>`. */
export const HOOK_POSITION = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#(hook_[0-9a-z]{9}[A-Za-z0-9_-]{16})$/;

/** How long the previous secret keeps verifying after a rotation. */
export const PREVIOUS_SECRET_OVERLAP_MS = 24 * 3600 * 1000;

/** How long a `webhook-id` is remembered: a redelivery within it answers the first answer. */
export const REPLAY_WINDOW_SECONDS = 24 * 3600;

/**
 * The replay guard of one (hook, `webhook-id`): claimed by one delivery,
 * then `started` with the request it started, until `expires_at`.
 */
export interface EventGuard {
  state: 'claimed' | 'started';
  request_id: string;
  /** The claiming delivery's token: only it marks the event started or releases it. */
  claim_token: string;
  /** Epoch milliseconds after which a claim that never started is abandoned (its delivery died) and may be taken. */
  lease_until: number;
  /** Epoch seconds: the end of the replay window. */
  expires_at: number;
}

export type ClaimResult = { claimed: true } | { claimed: false; guard: EventGuard };

/** The largest event body, in bytes (decisions.md, Webhooks). */
export const MAX_EVENT_BYTES = 256 * 1024;
/** Hooks an account may have at once. */
export const MAX_HOOKS_PER_ACCOUNT = 100;

/** The path of a hook's events, under the service's public root. */
export const hookEventsPath = (hookId: string): string => `/v1/hooks/${hookId}/events`;

/** The hook as the API shows it: never its secret. `previous_secret_expires_at` only while the previous secret still verifies. */
export const hookView = (hook: Hook, baseUrl: string, now: Date) => ({
  id: hook.id,
  name: hook.name,
  url: `${baseUrl}${hookEventsPath(hook.id)}`,
  workflow_version_id: hook.workflow_version_id,
  entry_node_ids: hook.entry_node_ids,
  secret_rotated_at: hook.secret_rotated_at,
  previous_secret_expires_at:
    hook.previous_secret_version !== null && hook.previous_valid_until !== null && Date.parse(hook.previous_valid_until) > now.getTime()
      ? hook.previous_valid_until
      : null,
  created_at: hook.created_at,
});

export type HookView = ReturnType<typeof hookView>;
