import { createHash, randomUUID } from 'node:crypto';
import type { Account, RateLimiter } from '#accounts/index.js';
import { limitsInForce } from '#accounts/index.js';
import type { RequestStarter } from '#execution/index.js';
import { AccountSuspendedError, InvalidBodyError, InvalidJsonError, NotFoundError } from '#platform/errors.js';
import { nameBasedUuid } from '#platform/uuid.js';
import type { UsageMeter } from '#usage/index.js';
import { EventInFlightError, EventTooLargeError } from './errors.js';
import type { HookEventsRepo } from './hook-events-repository.js';
import type { HooksRepo } from './hooks-repository.js';
import { MAX_EVENT_BYTES, REPLAY_WINDOW_SECONDS } from './model.js';
import type { HookSecrets } from './secrets.js';
import { type EventHeaders, verifyEvent } from './verify.js';

export interface ReceiveDeps {
  hooks: Pick<HooksRepo, 'find'>;
  events: Pick<HookEventsRepo, 'claim' | 'markStarted' | 'release'>;
  secrets: Pick<HookSecrets, 'verifying'>;
  starter: Pick<RequestStarter, 'start'>;
  usage: Pick<UsageMeter, 'admit'>;
  /** The account's request rate (decisions.md, Rate limits): an event counts as one request of the hook's account. */
  rates: RateLimiter;
  accounts: { get(accountId: string): Promise<Account | undefined> };
  clock?: () => Date;
  sleep?: (ms: number) => Promise<void>;
}

export interface IncomingEvent {
  hookId: string;
  /** The body exactly as received (what is signed); undefined when there is none. */
  rawBody: string | undefined;
  /** Its size in bytes as received. */
  bytes: number;
  headers: EventHeaders;
}

/**
 * A delivery that finds the event claimed by another waits for it this long
 * at most, then answers 409 `webhook_in_flight` (retry). A claim whose
 * delivery died is taken over after CLAIM_LEASE_MS: longer than any HTTP
 * function runs (29 s), so a live delivery is never overtaken.
 */
export const CLAIM_LEASE_MS = 60_000;
export const WAIT_FOR_CLAIM_MS = 10_000;
const POLL_MS = 100;

const sleeper = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The id of the request an event of a hook starts: the same for every delivery of one `webhook-id`. */
export const eventRequestId = (hookId: string, webhookId: string): string => nameBasedUuid(`hook-event\n${hookId}\n${webhookId}`);

/** The replay guard's key part: webhook-ids are the sender's strings, of any length and characters. */
export const webhookIdHash = (webhookId: string): string => createHash('sha256').update(webhookId).digest('base64url');

/**
 * `POST /v1/hooks/{id}/events`, in order: the hook (404 unknown or
 * deleted), the size (413 above 256 KiB), the signature with the current
 * secret and, during a rotation's overlap, the previous one (401), the body
 * (400 not JSON, or not an object). Then the event is claimed for this
 * delivery (./hook-events-repository.ts): an event already started answers
 * its request again, starting nothing; one claimed by a concurrent delivery
 * is waited for. The claiming delivery starts the request as any creation
 * does: the account's request rate (429 `rate_limited`, as for a bearer
 * call), the usage check (429 `usage_window_exceeded`, 403
 * `insufficient_balance`), the account's ceiling on work in progress (429
 * `rate_limited`), with the deterministic id `eventRequestId`, so even a
 * delivery taking over a dead claim cannot start a second request. A refused
 * start releases the claim, so the sender's retry is tried afresh.
 */
export async function receiveEvent(deps: ReceiveDeps, event: IncomingEvent): Promise<{ workflow_request_id: string; replayed: boolean }> {
  const clock = deps.clock ?? (() => new Date());
  const sleep = deps.sleep ?? sleeper;
  const hook = await deps.hooks.find(event.hookId);
  if (!hook) throw new NotFoundError('No such hook.');
  if (event.bytes > MAX_EVENT_BYTES) throw new EventTooLargeError(event.bytes);
  const webhookId = verifyEvent(await deps.secrets.verifying(hook, clock()), event.rawBody ?? '', event.headers);
  const payload = parsePayload(event.rawBody);

  const requestId = eventRequestId(hook.id, webhookId);
  const guardKey = webhookIdHash(webhookId);
  const token = randomUUID();
  const waitUntil = clock().getTime() + WAIT_FOR_CLAIM_MS;
  for (;;) {
    const claim = await deps.events.claim(hook.id, guardKey, {
      requestId,
      token,
      now: clock(),
      leaseMs: CLAIM_LEASE_MS,
      windowSeconds: REPLAY_WINDOW_SECONDS,
    });
    if (!claim.claimed) {
      if (claim.guard.state === 'started') return { workflow_request_id: claim.guard.request_id, replayed: true };
      if (clock().getTime() >= waitUntil) throw new EventInFlightError();
      await sleep(POLL_MS);
      continue;
    }
    try {
      const account = await deps.accounts.get(hook.account_id);
      if (!account) throw new NotFoundError('No such hook.');
      if (account.suspended) throw new AccountSuspendedError();
      const limits = limitsInForce(account);
      await deps.rates.admit(hook.account_id, limits);
      await deps.usage.admit(hook.account_id, account);
      const request = await deps.starter.start(
        hook.account_id,
        {
          workflow_version_id: hook.workflow_version_id,
          entry_node_ids: hook.entry_node_ids,
          payload,
          metadata: { hook_id: hook.id, webhook_id: webhookId },
        },
        { id: requestId, limits },
      );
      await deps.events.markStarted(hook.id, guardKey, token);
      return { workflow_request_id: request.id, replayed: false };
    } catch (error) {
      await deps.events.release(hook.id, guardKey, token);
      throw error;
    }
  }
}

/** The event body as the request's `payload`: a JSON object. */
function parsePayload(rawBody: string | undefined): Record<string, unknown> {
  if (rawBody === undefined || rawBody === '') throw new InvalidJsonError('The event body is empty; it must be a JSON object.');
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody);
  } catch {
    throw new InvalidJsonError();
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new InvalidBodyError('The event body must be a JSON object: it becomes the request’s payload.');
  return parsed as Record<string, unknown>;
}
