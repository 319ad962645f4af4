import { newHarnessId } from '#platform/ids.js';
import { type HarnessFile, validateHarnessFiles } from './harness-files.js';
import type { HarnessesRepo } from './harnesses-repository.js';
import type { Harness } from './model.js';

/** Validates the files (400 `harness_files_invalid` naming every offending path) and stores the harness. */
export async function createHarness(
  harnesses: HarnessesRepo,
  accountId: string,
  input: { name: string; files: HarnessFile[] },
  now = new Date(),
): Promise<Harness> {
  const valid = validateHarnessFiles(input.files);
  const harness: Harness = {
    id: newHarnessId(),
    account_id: accountId,
    name: input.name,
    model: valid.config.model,
    config: valid.config,
    files: valid.files.map(({ path, bytes }) => ({ path, bytes })),
    total_bytes: valid.totalBytes,
    instructions_empty: valid.instructionsEmpty,
    created_at: now.toISOString(),
  };
  return harnesses.create(harness, input.files);
}
