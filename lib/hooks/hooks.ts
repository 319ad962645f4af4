import type { RequestStarter } from '#execution/index.js';
import { NotFoundError } from '#platform/errors.js';
import type { HooksRepo } from './hooks-repository.js';
import { type Hook, hookView, newHookId, PREVIOUS_SECRET_OVERLAP_MS } from './model.js';
import { FIRST_SECRET_VERSION, type HookSecrets } from './secrets.js';

/** The hooks of an account: create (checked as running would check it), read, rotate. */
export interface HookDeps {
  hooks: HooksRepo;
  secrets: Pick<HookSecrets, 'of'>;
  starter: Pick<RequestStarter, 'check'>;
  baseUrl: string;
  clock?: () => Date;
}

/**
 * A new hook, refused with the 422 that running its version at these entry
 * nodes would answer (another account's or an unknown version, entry nodes
 * that are not the version's, nodes this service cannot run). The answer
 * shows the secret: the only time it is shown.
 */
export async function createHook(deps: HookDeps, accountId: string, input: { name: string; workflow_version_id: string; entry_node_ids: string[] }) {
  await deps.starter.check(accountId, input);
  const now = (deps.clock ?? (() => new Date()))();
  const hook: Hook = {
    id: newHookId(),
    account_id: accountId,
    name: input.name,
    workflow_version_id: input.workflow_version_id,
    entry_node_ids: input.entry_node_ids,
    secret_version: FIRST_SECRET_VERSION,
    previous_secret_version: null,
    previous_valid_until: null,
    secret_rotated_at: null,
    created_at: now.toISOString(),
  };
  await deps.hooks.create(hook);
  return withSecret(hookView(hook, deps.baseUrl, now), await deps.secrets.of(hook.id, hook.secret_version));
}

/** The account's hook; 404 alike for a malformed, unknown or other account's id. */
export async function findHook(hooks: Pick<HooksRepo, 'get'>, accountId: string, hookId: string): Promise<Hook> {
  const hook = await hooks.get(accountId, hookId);
  if (!hook) throw new NotFoundError('No such hook.');
  return hook;
}

/** A new secret, shown once; the one it replaces keeps verifying for PREVIOUS_SECRET_OVERLAP_MS (24 hours). */
export async function rotateHookSecret(deps: Omit<HookDeps, 'starter'>, accountId: string, hookId: string) {
  const now = (deps.clock ?? (() => new Date()))();
  const hook = await deps.hooks.rotate(accountId, hookId, {
    now: now.toISOString(),
    previousValidUntil: new Date(now.getTime() + PREVIOUS_SECRET_OVERLAP_MS).toISOString(),
  });
  return withSecret(hookView(hook, deps.baseUrl, now), await deps.secrets.of(hook.id, hook.secret_version));
}

/** The view with `secret` after `url`, as the create and rotate answers show it. */
const withSecret = (view: ReturnType<typeof hookView>, secret: string) => {
  const { id, name, url, ...rest } = view;
  return { id, name, url, secret, ...rest };
};
