import { NotFoundError } from '#platform/errors.js';
import type { HarnessConfig } from './harness-config.js';
import type { HarnessFile } from './harness-files.js';
import type { HarnessesRepo } from './harnesses-repository.js';
import type { Harness } from './model.js';
import { limitsInOrder } from './run-limit-names.js';

/**
 * Harnesses as the API shows them, and the lookups that answer 404 alike
 * for malformed, unknown and other accounts' ids. Creation (which needs the
 * harness.json schema, and so zod) is in create-harness.ts, so that the
 * read handlers do not load it.
 */

/** What `POST /v2/harnesses` answers. */
export const harnessCreatedView = (harness: Harness) => ({ id: harness.id, name: harness.name, model: harness.model, created_at: harness.created_at });

/** An entry of `GET /v2/harnesses` (the specification's harness list entry). */
export const harnessListView = (harness: Harness) => ({ id: harness.id, name: harness.name });

/** harness.json as parsed, its fields in their documented order (a stored map keeps none). */
const configView = (config: HarnessConfig): HarnessConfig => ({
  model: config.model,
  instructions: config.instructions,
  tools: config.tools.map(({ name, require_approval }) => ({ name, require_approval })),
  mcp_servers: config.mcp_servers.map(({ name, url }) => ({ name, url })),
  max_turns: config.max_turns,
  ...(config.limits ? { limits: limitsInOrder(config.limits) } : {}),
});

/** What `GET /v2/harnesses/{id}` answers: the harness, its parsed configuration and its files. */
export const harnessView = (harness: Harness, files: HarnessFile[]) => ({
  id: harness.id,
  name: harness.name,
  model: harness.model,
  created_at: harness.created_at,
  config: configView(harness.config),
  files: files.map(({ path, content }) => ({ path, content })),
});

export const HARNESS_NOT_FOUND = 'No such harness.';

export async function findHarness(harnesses: HarnessesRepo, accountId: string, harnessId: string): Promise<Harness> {
  const harness = await harnesses.get(accountId, harnessId);
  if (!harness) throw new NotFoundError(HARNESS_NOT_FOUND);
  return harness;
}

export async function findHarnessWithFiles(harnesses: HarnessesRepo, accountId: string, harnessId: string) {
  const found = await harnesses.getWithFiles(accountId, harnessId);
  if (!found) throw new NotFoundError(HARNESS_NOT_FOUND);
  return found;
}
